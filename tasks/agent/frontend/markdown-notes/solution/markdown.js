/* A small, safe Markdown renderer: everything the user types is escaped; only the markup we generate is HTML. */
(function (global) {
  'use strict';

  function escapeHtml(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  }

  function safeHref(url) {
    var u = url.trim();
    if (/^(javascript|vbscript|data):/i.test(u.replace(/[\u0000-\u0020]/g, ''))) return null;
    return u;
  }

  // Inline markup on already-escaped text. Code spans are cut out first so nothing inside them is formatted.
  function inline(raw) {
    var codes = [];
    var text = escapeHtml(raw).replace(/`([^`]+)`/g, function (_, code) {
      codes.push('<code>' + code + '</code>');
      return '\u0000' + (codes.length - 1) + '\u0000';
    });
    text = text.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, function (_, label, url) {
      var href = safeHref(url.replace(/&amp;/g, '&'));
      return href === null ? label : '<a href="' + escapeHtml(href) + '" rel="noopener noreferrer">' + label + '</a>';
    });
    text = text.replace(/\*\*(?=\S)([\s\S]*?\S)\*\*(?!\*)/g, '<strong>$1</strong>')
      .replace(/(^|[^*])\*(?=\S)([^*]*?\S)\*/g, '$1<em>$2</em>')
      .replace(/(^|\W)_(?=\S)([^_]*?\S)_(?=\W|$)/g, '$1<em>$2</em>');
    return text.replace(/\u0000(\d+)\u0000/g, function (_, i) { return codes[Number(i)]; });
  }

  function render(source) {
    var lines = source.replace(/\r\n?/g, '\n').split('\n');
    var out = [];
    var i = 0;
    while (i < lines.length) {
      var line = lines[i];
      var m;
      if (/^\s*$/.test(line)) { i++; continue; }
      if ((m = /^```\s*([\w+-]*)\s*$/.exec(line))) {
        var code = [];
        i++;
        while (i < lines.length && !/^```\s*$/.test(lines[i])) code.push(lines[i++]);
        i++;
        out.push('<pre><code' + (m[1] ? ' class="language-' + escapeHtml(m[1]) + '"' : '') + '>' +
                 escapeHtml(code.join('\n')) + '</code></pre>');
      } else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
        out.push('<h' + m[1].length + '>' + inline(m[2]) + '</h' + m[1].length + '>');
        i++;
      } else if (/^>\s?/.test(line)) {
        var quoted = [];
        while (i < lines.length && /^>\s?/.test(lines[i])) quoted.push(lines[i++].replace(/^>\s?/, ''));
        out.push('<blockquote>' + render(quoted.join('\n')) + '</blockquote>');
      } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
        var ordered = /^\s*\d+[.)]\s+/.test(line);
        var pattern = ordered ? /^\s*\d+[.)]\s+(.*)$/ : /^\s*[-*+]\s+(.*)$/;
        var items = [];
        while (i < lines.length && pattern.test(lines[i])) items.push('<li>' + inline(pattern.exec(lines[i++])[1]) + '</li>');
        out.push((ordered ? '<ol>' : '<ul>') + items.join('') + (ordered ? '</ol>' : '</ul>'));
      } else if (/^(-{3,}|\*{3,})\s*$/.test(line)) {
        out.push('<hr>');
        i++;
      } else {
        var para = [];
        while (i < lines.length && !/^\s*$/.test(lines[i]) && !/^(#{1,6}\s|```|>|\s*([-*+]|\d+[.)])\s+)/.test(lines[i])) {
          para.push(lines[i++]);
        }
        if (!para.length) para.push(lines[i++]);
        out.push('<p>' + inline(para.join('\n')).replace(/\n/g, '<br>') + '</p>');
      }
    }
    return out.join('\n');
  }

  global.Markdown = { render: render, escapeHtml: escapeHtml };
})(window);
