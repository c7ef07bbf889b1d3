'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { render } = require('../src');

test('a simple table with alignment', () => {
  assert.equal(render('a | b\n:- | -:\n1 | 2\n'),
    '<table>\n<thead>\n<tr><th style="text-align:left">a</th><th style="text-align:right">b</th></tr>\n</thead>\n' +
    '<tbody>\n<tr><td style="text-align:left">1</td><td style="text-align:right">2</td></tr>\n</tbody>\n</table>\n');
});

test('not a table without a delimiter row', () => {
  assert.equal(render('a | b\nc | d\n'), '<p>a | b\nc | d</p>\n');
});
