'use strict';

const { renderBlocks } = require('./blocks');

/** Convert a Markdown document to HTML: one block per line, a trailing newline. */
function render(markdown) {
  const lines = String(markdown).replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  const blocks = renderBlocks(lines);
  return blocks.length ? blocks.join('\n') + '\n' : '';
}

module.exports = { render };
