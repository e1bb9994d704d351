/**
 * Live delay (issue 39): how long after A's write is acknowledged does B's open event stream
 * (GET /v1/events) carry the `notification` it caused? Two accounts with profiles; each round A posts
 * mentioning B (a `mention` for B), B comments on it, and A likes B's comment (a `like` for B). One
 * write at a time, so each figure is a delay, not a queue.
 *
 * SQLite: one process. PostgreSQL (with BENCH_DATABASE_URL): A writes to one node and B's stream is
 * held on a second node on the same database, so the notification crosses processes through the
 * database's signal. With both, the two run side by side: their runs alternate, BENCH_RUNS times
 * each, so whatever else the machine does weighs on both alike.
 *
 *   npx tsx bench/live.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/live.ts
 *   BENCH_ROUNDS=100 (default: events of each kind per run), BENCH_RUNS=2 (default)
 */
import { benchDatabase, Cleanup, machine, markdownTable, percentile, postJson, startService, withCleanup, writeResult, type Server } from './lib.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 100);
const runs = Number(process.env.BENCH_RUNS ?? 2);
const password = 'correct horse battery';

interface Frame {
  event: string;
  data: string;
  at: number;
}

/**
 * B's event stream, read frame by frame as they arrive; `next(name)` resolves with the next frame of
 * that name (frames of other names are dropped), or rejects after `timeoutMs`.
 */
async function openStream(url: string, token: string) {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  if (!response.ok || !response.body) throw new Error(`GET /v1/events answered ${response.status}`);
  const queue: Frame[] = [];
  const waiting: { wake: (() => void) | null } = { wake: null };
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const at = performance.now();
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const text = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = '';
          const data: string[] = [];
          for (const line of text.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (event) queue.push({ event, data: data.join('\n'), at });
        }
        waiting.wake?.();
      }
    } catch {
      // aborted at the end
    }
  })();
  return {
    async next(name: string, timeoutMs = 10_000): Promise<Frame> {
      const giveUp = performance.now() + timeoutMs;
      for (;;) {
        const index = queue.findIndex((frame) => frame.event === name);
        if (index >= 0) return queue.splice(0, index + 1).at(-1)!;
        queue.length = 0;
        const left = giveUp - performance.now();
        if (left <= 0) throw new Error(`no ${name} event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiting.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        waiting.wake = null;
      }
    },
    close: () => controller.abort(),
  };
}

async function person(url: string, name: string): Promise<string> {
  const token = (await postJson<{ data: { token: string } }>(`${url}/v1/auth/signup`, { email: `${name}@example.test`, password })).data.token;
  await postJson(`${url}/v1/users`, { username: name, displayName: name.toUpperCase() }, token);
  return token;
}

interface Delays {
  mention: number[];
  like: number[];
}

/** One run on a fresh database: `rounds` mentions and likes, each timed from A's acknowledged write to B's event. */
async function run(adminUrl: string | null): Promise<{ dialect: string; delays: Delays; missed: number }> {
  const cleanup = new Cleanup();
  try {
    const database = await benchDatabase(cleanup, adminUrl);
    const writeNode: Server = await startService(database.url, cleanup, { name: `${database.dialect}-writes` });
    const streamNode: Server = database.dialect === 'postgres' ? await startService(database.url, cleanup, { name: 'postgres-stream' }) : writeNode;
    const a = await person(writeNode.url, 'alice');
    const b = await person(writeNode.url, 'bruno');
    const stream = await openStream(streamNode.url, b);
    cleanup.add(() => stream.close());
    // The stream is open once its first (id-only) frame is in; give it a moment to start listening.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const delays: Delays = { mention: [], like: [] };
    let missed = 0;
    const timed = async (kind: keyof Delays, write: () => Promise<unknown>) => {
      await write();
      const acked = performance.now();
      const frame = await stream.next('notification');
      const type = (JSON.parse(frame.data) as { notification: { type: string } }).notification.type;
      if (type !== kind) missed++;
      // The event may come before the write's answer does: then the delay is 0.
      delays[kind].push(Math.max(0, frame.at - acked));
    };
    for (let i = 0; i < rounds; i++) {
      let postId = '';
      await timed('mention', async () => {
        postId = (await postJson<{ post: { id: string } }>(`${writeNode.url}/v1/social/posts`, { body: `Round ${i}: what do you think, @bruno?` }, a)).post.id;
      });
      const reply = await postJson<{ comment: { id: string } }>(`${writeNode.url}/v1/social/posts/${postId}/comments`, { body: `Reply ${i}` }, b);
      await timed('like', () => postJson(`${writeNode.url}/v1/social/comments/${reply.comment.id}/vote`, { value: 1 }, a));
    }
    return { dialect: database.dialect, delays, missed };
  } finally {
    await cleanup.run();
  }
}

const ms = (sorted: number[], p: number) => percentile(sorted, p).toFixed(1);

await withCleanup(async () => {
  const before = machine();
  console.log(`node ${before.node}, ${before.cores} cores (${before.cpu}), load average before: ${before.loadavg.join(' ')}`);
  const adminUrls = [null, ...(process.env.BENCH_DATABASE_URL ? [process.env.BENCH_DATABASE_URL] : [])];
  const rows: (string | number)[][] = [];
  const problems: string[] = [];
  const all = new Map<string, Delays>();
  for (let r = 1; r <= runs; r++) {
    for (const adminUrl of adminUrls) {
      process.stderr.write(`run ${r} on ${adminUrl ? 'postgres' : 'sqlite'}: ${rounds} rounds ...\n`);
      const result = await run(adminUrl);
      const where = result.dialect === 'postgres' ? 'PostgreSQL (write and stream on two nodes)' : 'SQLite (one process)';
      for (const kind of ['mention', 'like'] as const) {
        const sorted = [...result.delays[kind]].sort((x, y) => x - y);
        rows.push([where, r, kind, sorted.length, ms(sorted, 50), ms(sorted, 99), (sorted.at(-1) ?? NaN).toFixed(1)]);
        process.stderr.write(`  ${rows.at(-1)!.join(' | ')}\n`);
        const sum = all.get(result.dialect) ?? { mention: [], like: [] };
        sum[kind].push(...sorted);
        all.set(result.dialect, sum);
      }
      if (result.missed > 0) problems.push(`${result.dialect} run ${r}: ${result.missed} notifications of the wrong kind`);
    }
  }
  const table = markdownTable(['database', 'run', 'notification', 'events', 'p50 (ms)', 'p99 (ms)', 'max (ms)'], rows);
  const after = machine();
  console.log(`\n## Live delay: A's acknowledged write to B's notification event\n\n${table}\n`);
  console.log(`load average after: ${after.loadavg.join(' ')}`);
  for (const problem of problems) console.log(`WARNING ${problem}`);
  writeResult('live', {
    bench: 'live',
    date: new Date().toISOString(),
    machine: before,
    loadavgAfter: after.loadavg,
    rounds,
    runs,
    table,
    delays: Object.fromEntries(all),
    problems,
  });
  if (problems.length > 0) process.exitCode = 1;
});
