/**
 * What a group process of `run-tests.ts` runs: test files one after another in this one process,
 * each as a suite named by its path, so its tests, its own `before`/`after` hooks and a failure stay
 * under its name.
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { after, before, describe } from 'node:test';
import { pathToFileURL } from 'node:url';

/**
 * `timesFile`: where each file's seconds go, one JSON line per file, from before its first hook to
 * after its last (its apps closed). Node's own duration of a suite counts from when it was built.
 */
export async function runFiles(root: string, files: string[], timesFile: string): Promise<void> {
  for (const file of files) {
    const name = relative(root, file);
    let started = 0;
    let imported!: () => void;
    const done = new Promise<void>((resolve) => (imported = resolve));
    describe(name, async () => {
      before(() => void (started = performance.now()));
      try {
        await import(pathToFileURL(file).href);
      } finally {
        imported();
      }
      after(() => appendFileSync(timesFile, `${JSON.stringify({ file: name, seconds: (performance.now() - started) / 1000 })}\n`));
    });
    // One file at a time: a module's describe() joins the suite whose import evaluates it, and two
    // imports in flight that share a module with top-level await are evaluated under the first one.
    await done;
  }
}
