import { readdirSync, readFileSync } from 'node:fs';
import { benchDatabase, rssMb, startService, waitUntilIdle, withCleanup } from './lib.ts';
await withCleanup(async (cleanup) => {
  for (const entry of ['src/main.ts', 'dist/main.js']) {
    const db = await benchDatabase(cleanup);
    const s = await startService(db.url, cleanup, { entry });
    await waitUntilIdle(s, { windowMs: 2000 });
    const idle = rssMb(s.child.pid!);
    const threadsIdle = readdirSync(`/proc/${s.child.pid}/task`).length;
    await (await fetch(`${s.url}/v1/discover?q=summarise%20my%20inbox`)).arrayBuffer();
    await waitUntilIdle(s, { windowMs: 2000 });
    const names = readdirSync(`/proc/${s.child.pid}/task`).map((t) => readFileSync(`/proc/${s.child.pid}/task/${t}/comm`, 'utf8').trim());
    console.log(entry, 'idle RSS', idle.toFixed(0), 'threads', threadsIdle, '| after search', rssMb(s.child.pid!).toFixed(0), 'threads', names.length, names.join(','));
    await s.stop();
  }
});
