'use strict';

const { escapeHtml } = require('./escape');

const PUNCT = '\\`*_{}[]()#+-.!|>~';

/**
 * Render inline Markdown: `code`, **strong**, *em* / _em_, [text](url), backslash escapes.
 * Works left to right; unmatched markers stay literal.
 */
function renderInline(text) {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length && PUNCT.includes(text[i + 1])) {
      out += escapeHtml(text[i + 1]);
      i += 2;
      continue;
    }
    if (c === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i) {
        out += '<code>' + escapeHtml(text.slice(i + 1, end)) + '</code>';
        i = end + 1;
        continue;
      }
    }
    if (c === '*' && text[i + 1] === '*') {
      const end = text.indexOf('**', i + 2);
      if (end > i + 2) {
        out += '<strong>' + renderInline(text.slice(i + 2, end)) + '</strong>';
        i = end + 2;
        continue;
      }
    }
    if (c === '*' || c === '_') {
      const end = text.indexOf(c, i + 1);
      if (end > i + 1 && text[i + 1] !== ' ') {
        out += '<em>' + renderInline(text.slice(i + 1, end)) + '</em>';
        i = end + 1;
        continue;
      }
    }
    if (c === '[') {
      const close = text.indexOf('](', i + 1);
      const end = close > 0 ? text.indexOf(')', close + 2) : -1;
      if (close > 0 && end > 0) {
        const label = renderInline(text.slice(i + 1, close));
        const href = text.slice(close + 2, end).trim();
        out += '<a href="' + escapeHtml(safeUrl(href)) + '">' + label + '</a>';
        i = end + 1;
        continue;
      }
    }
    out += escapeHtml(c);
    i += 1;
  }
  return out;
}

/** Drop javascript: and similar URLs. */
function safeUrl(href) {
  return /^\s*(javascript|vbscript|data):/i.test(href) ? '#' : href;
}

module.exports = { renderInline, safeUrl };
