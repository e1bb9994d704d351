/**
 * Long-poll wake-up (issue 5): a polling agent holds GET /v1/agents/:id/tasks/poll?wait=10 on one
 * node while a requester submits a matching task; how long after the task is stored does the poll
 * answer? On PostgreSQL the poll and the submission go to two different service processes on one
 * database, so the wake-up crosses processes through LISTEN/NOTIFY; on SQLite there is one process.
 * One task at a time, so each measurement is a wake-up, not a queue.
 *
 *   npx tsx bench/poll-wake.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/poll-wake.ts
 */
import { randomBytes } from 'node:crypto';
import { formatPublicKey, publicKeyFromSeed, signMessage } from '../src/lib/ed25519.ts';
import { benchDatabase, machine, markdownTable, percentile, postJson, startService, withCleanup, writeResult } from './lib.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);

await withCleanup(async (cleanup) => {
  const database = await benchDatabase(cleanup);
  const submitNode = await startService(database.url, cleanup);
  const pollNode = database.dialect === 'postgres' ? await startService(database.url, cleanup) : submitNode;

  const requester = (
    await postJson<{ data: { token: string } }>(`${submitNode.url}/v1/auth/signup`, { email: 'req@example.test', password: 'correct horse battery' })
  ).data.token;
  const seed = randomBytes(32);
  const agent = await postJson<{ data: { id: string } }>(`${submitNode.url}/v1/agents/provisional`, {
    name: 'Poll Bench Agent',
    description: 'Polls',
    deliveryMode: 'poll',
    capabilities: ['geocoding'],
    pubkey: formatPublicKey(publicKeyFromSeed(seed)),
  });
  const pollUrl = `${pollNode.url}/v1/agents/${agent.data.id}/tasks/poll`;
  // A provisional agent's poll proves its registration key.
  const signed = () => {
    const seconds = Math.floor(Date.now() / 1000);
    return { 'x-agent-signature': `${seconds}.${signMessage(seed, `${agent.data.id}.${seconds}`).toString('base64url')}` };
  };
  await fetch(pollUrl, { headers: signed() }).then((r) => r.arrayBuffer());

  const afterStored: number[] = [];
  const fromSubmit: number[] = [];
  let missed = 0;
  process.stderr.write(`measuring ${rounds} wake-ups ...\n`);
  for (let i = 0; i < rounds; i++) {
    const polled = fetch(`${pollUrl}?wait=10`, { headers: signed() }).then(async (response) => ({
      at: performance.now(),
      body: (await response.json()) as { data: { taskId: string }[] },
    }));
    // Let the poll reach its wait before the task exists.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const submitStart = performance.now();
    const submitted = await postJson<{ data: { id: string } }>(
      `${submitNode.url}/v1/tasks`,
      { description: 'Where is this?', capabilities: ['geocoding'] },
      requester,
    );
    const storedBy = performance.now();
    const answer = await polled;
    if (answer.body.data[0]?.taskId !== submitted.data.id) missed++;
    fromSubmit.push(answer.at - submitStart);
    // The task was committed before the submission answered; the poll cannot answer before the commit.
    afterStored.push(Math.max(0, answer.at - storedBy));
  }
  fromSubmit.sort((a, b) => a - b);
  afterStored.sort((a, b) => a - b);
  const table = markdownTable(
    ['measure', 'p50 (ms)', 'p99 (ms)', 'max (ms)'],
    [
      [
        'poll answered, from the start of the submission',
        percentile(fromSubmit, 50).toFixed(1),
        percentile(fromSubmit, 99).toFixed(1),
        (fromSubmit.at(-1) ?? NaN).toFixed(1),
      ],
      [
        'poll answered, after the submission answered (0 if before)',
        percentile(afterStored, 50).toFixed(1),
        percentile(afterStored, 99).toFixed(1),
        (afterStored.at(-1) ?? NaN).toFixed(1),
      ],
    ],
  );
  const where = database.dialect === 'postgres' ? 'two processes, LISTEN/NOTIFY' : 'one process';
  console.log(`\n## Long-poll wake-up on ${database.dialect} (${where}, ${rounds} rounds)\n\n${table}\n`);
  const problems = missed > 0 ? [`${missed} polls did not answer with their task`] : [];
  for (const problem of problems) console.log(`WARNING ${problem}`);
  writeResult(`poll-wake-${database.dialect}`, {
    bench: 'poll-wake',
    dialect: database.dialect,
    date: new Date().toISOString(),
    machine: machine(),
    rounds,
    table,
    problems,
  });
  if (problems.length > 0) process.exitCode = 1;
});
