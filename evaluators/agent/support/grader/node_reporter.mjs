// node:test reporter: one record line per test, appended to $BANANABENCH_REPORT as each test ends.
// Loaded by the runner with --test-reporter while the test file runs in this same process.
import { openSync, writeSync } from 'node:fs';

const fd = openSync(process.env.BANANABENCH_REPORT, 'a');
const file = process.env.BANANABENCH_TEST_FILE || '';

export default async function* reporter(source) {
  const stack = [];
  for await (const event of source) {
    const data = event.data || {};
    if (event.type === 'test:start') {
      stack.length = data.nesting;
      stack[data.nesting] = data.name;
    } else if (event.type === 'test:pass' || event.type === 'test:fail') {
      const path = stack.slice(0, data.nesting).concat([data.name]).join(' > ');
      let outcome = event.type === 'test:pass' ? 'passed' : 'failed';
      if (data.skip !== undefined || data.todo !== undefined) outcome = 'skipped';
      const details = data.details || {};
      const line = { id: `${file}::${path}`, outcome, seconds: (details.duration_ms || 0) / 1000 };
      if (details.error) line.message = String(details.error.stack || details.error).slice(-2000);
      writeSync(fd, JSON.stringify(line) + '\n');
    }
  }
}
