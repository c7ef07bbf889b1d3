'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { renderInline } = require('../src/inline');

test('emphasis, code and links', () => {
  assert.equal(renderInline('a **b** *c* _d_'), 'a <strong>b</strong> <em>c</em> <em>d</em>');
  assert.equal(renderInline('use `a < b` here'), 'use <code>a &lt; b</code> here');
  assert.equal(renderInline('[site](https://x.org/?a=1&b=2)'), '<a href="https://x.org/?a=1&amp;b=2">site</a>');
  assert.equal(renderInline('[bad](javascript:alert(1))'), '<a href="#">bad</a>)');
});

test('escapes', () => {
  assert.equal(renderInline('\\*not em\\*'), '*not em*');
  assert.equal(renderInline('<script>'), '&lt;script&gt;');
  assert.equal(renderInline('2 * 3 * 4'), '2 * 3 * 4');
});
