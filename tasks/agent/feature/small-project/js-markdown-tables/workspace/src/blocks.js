'use strict';

const { escapeHtml } = require('./escape');
const { renderInline } = require('./inline');

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^```\s*([\w+-]*)\s*$/;
const RULE = /^(\*\s*){3,}$|^(-\s*){3,}$|^(_\s*){3,}$/;
const BULLET = /^[-*+]\s+(.*)$/;
const ORDERED = /^(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^>\s?(.*)$/;

/** True when the line starts a block other than a paragraph. */
function startsBlock(line) {
  return HEADING.test(line) || FENCE.test(line) || RULE.test(line) || BULLET.test(line) ||
    ORDERED.test(line) || QUOTE.test(line);
}

/**
 * Split the document into blocks and render each one. Blocks are separated by blank lines or start
 * when a line begins a new block (heading, fence, rule, list item, quote).
 */
function renderBlocks(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    let m;
    if ((m = FENCE.exec(line))) {
      i = renderFence(lines, i + 1, m[1], out);
    } else if ((m = HEADING.exec(line))) {
      const level = m[1].length;
      out.push(`<h${level}>${renderInline(m[2])}</h${level}>`);
      i += 1;
    } else if (RULE.test(line.trim())) {
      out.push('<hr>');
      i += 1;
    } else if (QUOTE.test(line)) {
      i = renderQuote(lines, i, out);
    } else if (BULLET.test(line) || ORDERED.test(line)) {
      i = renderList(lines, i, out);
    } else {
      i = renderParagraph(lines, i, out);
    }
  }
  return out;
}

function renderFence(lines, start, lang, out) {
  let i = start;
  const body = [];
  while (i < lines.length && !/^```\s*$/.test(lines[i])) {
    body.push(lines[i]);
    i += 1;
  }
  const cls = lang ? ` class="language-${escapeHtml(lang)}"` : '';
  out.push(`<pre><code${cls}>${escapeHtml(body.join('\n'))}${body.length ? '\n' : ''}</code></pre>`);
  return i + 1;
}

function renderQuote(lines, start, out) {
  let i = start;
  const inner = [];
  while (i < lines.length && QUOTE.test(lines[i])) {
    inner.push(QUOTE.exec(lines[i])[1]);
    i += 1;
  }
  out.push('<blockquote>');
  out.push(...renderBlocks(inner));
  out.push('</blockquote>');
  return i;
}

function renderList(lines, start, out) {
  const ordered = ORDERED.test(lines[start]);
  const pattern = ordered ? ORDERED : BULLET;
  const first = ordered ? Number(ORDERED.exec(lines[start])[1]) : 1;
  let i = start;
  const items = [];
  while (i < lines.length) {
    const m = pattern.exec(lines[i]);
    if (m) {
      items.push(ordered ? m[2] : m[1]);
    } else if (/^\s{2,}\S/.test(lines[i]) && items.length) {
      items[items.length - 1] += ' ' + lines[i].trim();
    } else {
      break;
    }
    i += 1;
  }
  const tag = ordered ? 'ol' : 'ul';
  out.push(ordered && first !== 1 ? `<ol start="${first}">` : `<${tag}>`);
  for (const item of items) out.push(`<li>${renderInline(item)}</li>`);
  out.push(`</${tag}>`);
  return i;
}

function renderParagraph(lines, start, out) {
  let i = start;
  const text = [];
  while (i < lines.length && lines[i].trim() !== '' && (i === start || !startsBlock(lines[i]))) {
    text.push(lines[i].trim());
    i += 1;
  }
  out.push(`<p>${renderInline(text.join('\n'))}</p>`);
  return i;
}

module.exports = { renderBlocks, startsBlock };
