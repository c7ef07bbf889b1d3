// The node runner's entry point: runs the hidden test file named by $BANANABENCH_TEST_FILE in this process,
// then the canary pair named on standard input (one test that must pass, one that must fail), so the canaries
// end after every hidden test and go through the same node:test and node:assert as they do.
import assert from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import test from 'node:test';
import { pathToFileURL } from 'node:url';

let canary = null;
try {
  canary = JSON.parse(readFileSync(0, 'utf8').split('\n')[0]);
} catch {
  canary = null;
}
await import(pathToFileURL(resolve(process.env.BANANABENCH_TEST_FILE)).href);
if (canary && typeof canary.pass === 'string' && typeof canary.fail === 'string') {
  test(canary.pass, () => assert.strictEqual(canary.pass.length, canary.pass.length));
  test(canary.fail, () => assert.strictEqual(canary.fail, canary.pass));
}
