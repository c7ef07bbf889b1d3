#!/usr/bin/env node
'use strict';

// md2html [FILE]: convert Markdown (a file or stdin) to HTML on stdout.
const fs = require('fs');
const { render } = require('../src');

const input = process.argv[2] ? fs.readFileSync(process.argv[2], 'utf8') : fs.readFileSync(0, 'utf8');
process.stdout.write(render(input));
