'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { render } = require('../src');

test('headings, paragraphs and rules', () => {
  assert.equal(render('# Title\n\nSome *text*\nmore\n\n---\n'), '<h1>Title</h1>\n<p>Some <em>text</em>\nmore</p>\n<hr>\n');
});

test('lists', () => {
  assert.equal(render('- a\n- b\n  continued\n\n3. x\n4. y\n'),
    '<ul>\n<li>a</li>\n<li>b continued</li>\n</ul>\n<ol start="3">\n<li>x</li>\n<li>y</li>\n</ol>\n');
});

test('quotes and fences', () => {
  assert.equal(render('> # q\n> text\n'), '<blockquote>\n<h1>q</h1>\n<p>text</p>\n</blockquote>\n');
  assert.equal(render('```js\nif (a < b) {}\n```\n'), '<pre><code class="language-js">if (a &lt; b) {}\n</code></pre>\n');
});

test('empty input', () => {
  assert.equal(render(''), '');
});
