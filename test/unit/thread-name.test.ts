import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';

const threadNames = () =>
  readdirSync('/proc/self/task').map((tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    } catch {
      return ''; // the thread ended between the listing and the read
    }
  });

describe('nameThisThread', () => {
  it('names the worker thread that calls it, as /proc (and top -H) show it, cut to 15 characters', async () => {
    const module = new URL('../../src/lib/thread-name.ts', import.meta.url).href;
    const tsx = import.meta.resolve('tsx/esm/api');
    const worker = new Worker(
      `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(module)}); })
        .then(({ nameThisThread }) => { nameThisThread('agentry-test-thread-name'); require('node:worker_threads').parentPort.postMessage('named'); });`,
      { eval: true },
    );
    try {
      assert.equal(await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject)), 'named');
      if (process.platform !== 'linux') return; // nothing to read the name from; the call above must simply not throw
      const names = threadNames();
      assert.ok(names.includes('agentry-test-th'), `thread names: ${names.join(', ')}`);
    } finally {
      await worker.terminate();
    }
  });
});
