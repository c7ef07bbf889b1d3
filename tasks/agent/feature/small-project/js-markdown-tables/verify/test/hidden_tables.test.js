'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { render } = require('../src');

const th = (text, a) => `<th${a ? ` style="text-align:${a}"` : ''}>${text}</th>`;
const td = (text, a) => `<td${a ? ` style="text-align:${a}"` : ''}>${text}</td>`;
const row = (...cells) => `<tr>${cells.join('')}</tr>`;
const table = (head, body) => ['<table>', '<thead>', head, '</thead>', ...(body.length ? ['<tbody>', ...body, '</tbody>'] : []),
  '</table>'].join('\n') + '\n';

test('hidden: the example from the request', () => {
  const md = '| Fruit  | Qty | Price |\n|:-------|:---:|------:|\n| Apple  |  3  |  1.20 |\n| `a\\|b` | **2** |\n';
  assert.equal(render(md), table(row(th('Fruit', 'left'), th('Qty', 'center'), th('Price', 'right')), [
    row(td('Apple', 'left'), td('3', 'center'), td('1.20', 'right')),
    row(td('<code>a|b</code>', 'left'), td('<strong>2</strong>', 'center'), td('', 'right')),
  ]));
});

test('hidden: no alignment, no outer pipes, extra cells dropped', () => {
  assert.equal(render('a | b\n--- | ---\n1 | 2 | 3\nx\n'), table(row(th('a'), th('b')), [
    row(td('1'), td('2')), row(td('x'), td('')),
  ]));
});

test('hidden: header only has no tbody', () => {
  assert.equal(render('| h1 | h2 |\n| -- | :- |\n'), table(row(th('h1'), th('h2', 'left')), []));
});

test('hidden: single column and spaced delimiters', () => {
  assert.equal(render('| only |\n| :---: |\n| 1 |\n'), table(row(th('only', 'center')), [row(td('1', 'center'))]));
  assert.equal(render('a|b\n :--  |  --: \n'), table(row(th('a', 'left'), th('b', 'right')), []));
});

test('hidden: not tables', () => {
  assert.equal(render('a | b\nc | d\n'), '<p>a | b\nc | d</p>\n');
  assert.equal(render('a | b | c\n--- | ---\n'), '<p>a | b | c\n--- | ---</p>\n');
  assert.equal(render('a | b\n--- | -x-\n'), '<p>a | b\n--- | -x-</p>\n');
  assert.equal(render('abc\n|---|\n'), '<p>abc\n|---|</p>\n');
  assert.equal(render('a \\| b\n---\n'), '<p>a | b</p>\n<hr>\n');
});

test('hidden: a table right after a paragraph, then other blocks', () => {
  const md = 'Intro line\nsecond line\nname | n\n-- | --:\nx | 1\n# Next\n\nk | v\n-|-\n1 | 2\n- item\n\ns|t\n-|-\nafter\n\nend\n';
  assert.equal(render(md), '<p>Intro line\nsecond line</p>\n' +
    table(row(th('name'), th('n', 'right')), [row(td('x'), td('1', 'right'))]) +
    '<h1>Next</h1>\n' +
    table(row(th('k'), th('v')), [row(td('1'), td('2'))]) +
    '<ul>\n<li>item</li>\n</ul>\n' +
    table(row(th('s'), th('t')), [row(td('after'), td(''))]) +
    '<p>end</p>\n');
});

test('hidden: escaping and inline formatting in cells', () => {
  const md = '| tag | link |\n|---|---|\n| <b>&amp; | [x](http://a.b/?q=1&r=2) |\n| *em* \\| pipe | `x \\| y` |\n';
  assert.equal(render(md), table(row(th('tag'), th('link')), [
    row(td('&lt;b&gt;&amp;amp;'), td('<a href="http://a.b/?q=1&amp;r=2">x</a>')),
    row(td('<em>em</em> | pipe'), td('<code>x | y</code>')),
  ]));
});

test('hidden: tables inside block quotes', () => {
  assert.equal(render('> a | b\n> --|--\n> 1 | 2\n'),
    '<blockquote>\n' + table(row(th('a'), th('b')), [row(td('1'), td('2'))]) + '</blockquote>\n');
});

test('hidden: older features still behave', () => {
  assert.equal(render('# T\n\n- a | b\n- c\n\n```\na | b\n--|--\n```\n'),
    '<h1>T</h1>\n<ul>\n<li>a | b</li>\n<li>c</li>\n</ul>\n<pre><code>a | b\n--|--\n</code></pre>\n');
  assert.equal(render('a\n\n---\n'), '<p>a</p>\n<hr>\n');
});
