/**
 * Tasks bench (issue 5): tasks submitted and delivered end to end per second to a local agent, and
 * the time from submission to the webhook's arrival (p50, p99). The agent is an HTTP server in this
 * process that verifies nothing and calls back at once; 32 requesters submit in a closed loop.
 * Every task submitted while measuring must arrive exactly once: the bench counts the ones that never
 * arrived (lost) and the ones that arrived more than once, and fails unless both are 0.
 * On PostgreSQL it also prints the statements the service sent during the measured window (every one,
 * BEGIN/COMMIT and background work included, counted in the service's process) per completed task,
 * PostgreSQL's own count of committed transactions (pg_stat_database.xact_commit) per completed task
 * beside it, and the busiest statements. With BENCH_WAIT_EVENTS=1 it also samples what the database's
 * client backends wait on while measuring (pg_stat_activity every 0.1 s: ten transactions a second of
 * its own in xact_commit).
 *
 *   npx tsx bench/tasks.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/tasks.ts
 *   BENCH_WAIT_EVENTS=1 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/tasks.ts
 */
import { Agent, setGlobalDispatcher } from 'undici';
import {
  benchDatabase,
  benchSeconds,
  busiestStatements,
  machine,
  markdownTable,
  percentile,
  pgCommits,
  postJson,
  registerWebhookAgent,
  sampleWaitEvents,
  startWebhookAgent,
  startService,
  statementsBetween,
  withCleanup,
  writeResult,
} from './lib.ts';

setGlobalDispatcher(new Agent({ connections: 128, keepAliveTimeout: 30_000 }));

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds();
  const requesters = 32;
  const database = await benchDatabase(cleanup);

  const submittedAt = new Map<string, number>();
  const arrivalMs: number[] = [];
  const completedMs: number[] = [];
  let delivered = 0;
  let completed = 0;
  let callbackFailures = 0;
  let serviceUrl = '';
  const early = new Map<string, number>();
  // Webhooks that arrived, by task id, and the tasks submitted while measuring: what lost and twice are counted from.
  const arrivals = new Map<string, number>();
  const measured = new Set<string>();

  const agentUrl = await startWebhookAgent(cleanup, ({ at: arrived, taskId, taskToken }) => {
    delivered++;
    arrivals.set(taskId, (arrivals.get(taskId) ?? 0) + 1);
    const sent = submittedAt.get(taskId);
    // The webhook can beat the submitter's own response; note it and match up when the id is known.
    if (sent === undefined) early.set(taskId, arrived);
    else arrivalMs.push(arrived - sent);
    void fetch(`${serviceUrl}/v1/tasks/${taskId}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ taskToken, result: { ok: true } }),
    }).then(
      async (answer) => {
        await answer.arrayBuffer();
        if (answer.status === 200) {
          completed++;
          const start = submittedAt.get(taskId);
          if (start !== undefined) completedMs.push(performance.now() - start);
        } else callbackFailures++;
      },
      () => callbackFailures++,
    );
  });

  const service = await startService(database.url, cleanup, {
    env: { ALLOW_PRIVATE_ENDPOINTS: 'true', DELIVERY_POLL_INTERVAL_MS: '200', DELIVERY_CONCURRENCY: '64' },
  });
  serviceUrl = service.url;
  const owner = (
    await postJson<{ data: { token: string } }>(`${service.url}/v1/auth/signup`, { email: 'owner@example.test', password: 'correct horse battery' })
  ).data.token;
  const requester = (
    await postJson<{ data: { token: string } }>(`${service.url}/v1/auth/signup`, { email: 'req@example.test', password: 'correct horse battery' })
  ).data.token;
  const agentId = await registerWebhookAgent(service.url, owner, 'Bench Agent', agentUrl);
  await postJson(`${service.url}/v1/agents/${agentId}/heartbeat`, { status: 'available' }, owner);

  let submitted = 0;
  let measuring = false;
  let submitFailures = 0;
  const submitLatency: number[] = [];
  const submitOne = async () => {
    const started = performance.now();
    const response = await fetch(`${service.url}/v1/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${requester}` },
      body: JSON.stringify({ description: 'Summarise the bench report', capabilities: ['summarize'] }),
    });
    const body = (await response.json()) as { data: { id: string } };
    if (response.status !== 201) {
      submitFailures++;
      return;
    }
    submitted++;
    if (measuring) measured.add(body.data.id);
    submitLatency.push(performance.now() - started);
    submittedAt.set(body.data.id, started);
    const arrived = early.get(body.data.id);
    if (arrived !== undefined) arrivalMs.push(arrived - started);
  };

  const run = async (durationS: number) => {
    const deadline = performance.now() + durationS * 1000;
    await Promise.all(
      Array.from({ length: requesters }, async () => {
        while (performance.now() < deadline) await submitOne();
      }),
    );
  };
  await run(2);
  for (const list of [arrivalMs, completedMs, submitLatency]) list.length = 0;
  [submitted, delivered, completed] = [0, 0, 0];

  process.stderr.write(`measuring tasks for ${seconds} s ...\n`);
  const statementsBefore = await service.statementCounts?.();
  const commitsBefore = database.dialect === 'postgres' ? await pgCommits(database.url) : 0;
  const waits = database.dialect === 'postgres' && process.env.BENCH_WAIT_EVENTS ? await sampleWaitEvents(database.url) : null;
  measuring = true;
  const started = performance.now();
  await run(seconds);
  const elapsed = (performance.now() - started) / 1000;
  measuring = false;
  const completedInWindow = completed;
  const waitEvents = await waits?.stop();
  const statementsAfter = await service.statementCounts?.();
  const commits = database.dialect === 'postgres' ? (await pgCommits(database.url)) - commitsBefore : 0;
  // Let deliveries of the last submissions land before counting: a task still missing a minute after
  // the load stopped is counted lost.
  for (let i = 0; i < 600 && [...measured].some((id) => !arrivals.has(id)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  for (let i = 0; i < 100 && completed < submitted; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  const lost = [...measured].filter((id) => !arrivals.has(id)).length;
  const twice = [...arrivals.values()].filter((count) => count > 1).length;

  for (const list of [arrivalMs, completedMs, submitLatency]) list.sort((a, b) => a - b);
  const rows = [
    ['submitted (POST /v1/tasks, 201)', Math.round(submitted / elapsed), percentile(submitLatency, 50).toFixed(1), percentile(submitLatency, 99).toFixed(1)],
    ['delivered (webhook arrived at the agent)', Math.round(delivered / elapsed), percentile(arrivalMs, 50).toFixed(1), percentile(arrivalMs, 99).toFixed(1)],
    ['completed (callback answered 200)', Math.round(completed / elapsed), percentile(completedMs, 50).toFixed(1), percentile(completedMs, 99).toFixed(1)],
  ];
  const table = markdownTable(['stage', 'per second', 'p50 ms from submit', 'p99 ms from submit'], rows);
  console.log(`\n## Tasks on ${database.dialect} (${seconds} s, ${requesters} requesters in a closed loop)\n\n${table}\n`);
  console.log(`tasks submitted ${measured.size}, lost (never delivered) ${lost}, delivered more than once ${twice}`);
  let statements: string | null = null;
  if (statementsBefore && statementsAfter) {
    const sent = statementsBetween(statementsBefore, statementsAfter);
    statements = `statements per completed task: ${(sent.total / completedInWindow).toFixed(2)} (xact_commit per completed task: ${(commits / completedInWindow).toFixed(2)})`;
    console.log(`${statements}\n\nBusiest statements:\n\n${busiestStatements(sent, completedInWindow)}\n`);
  }
  if (waitEvents) console.log(`Wait events of the database's client backends while measuring (pg_stat_activity every 0.1 s), ${waitEvents}\n`);
  const problems = [
    ...(lost > 0 ? [`${lost} tasks never delivered`] : []),
    ...(twice > 0 ? [`${twice} tasks delivered more than once`] : []),
    ...(submitFailures > 0 ? [`${submitFailures} submissions failed`] : []),
    ...(callbackFailures > 0 ? [`${callbackFailures} callbacks failed`] : []),
    ...(completed < submitted ? [`${submitted - completed} tasks not completed within 10 s after the deliveries`] : []),
  ];
  for (const problem of problems) console.log(`WARNING ${problem}`);
  writeResult(`tasks-${database.dialect}`, {
    bench: 'tasks',
    dialect: database.dialect,
    date: new Date().toISOString(),
    machine: machine(),
    seconds,
    table,
    statements,
    submitted: measured.size,
    lost,
    twice,
    problems,
  });
  if (problems.length > 0) process.exitCode = 1;
});
