/**
 * Three service nodes on a PostgreSQL cluster and a Redis of the harness's own, behind nginx with
 * the configuration docs/operations.md recommends, under load while things break:
 *
 *   1. kill -9 a random node at a random moment and start it again (20 times; 5 with BENCH_QUICK=1),
 *   2. restart PostgreSQL with `pg_ctl -m fast`, then with `-m immediate`,
 *   3. stop Redis for a while and start it again,
 *   4. a rolling restart: SIGTERM each node in turn, start it again, wait for /ready (repeated
 *      BENCH_ROLLING_RESTARTS times, default 1: one round loses too few requests to compare by).
 *
 * Meanwhile writers (sign-ups, agent registrations, receipts, posts, votes, follows) log every id the
 * service acknowledged, and a requester submits tasks to a webhook agent and to a long-polling agent,
 * both of which call back through nginx. At the end every acknowledged write is looked up in the
 * database, and every acknowledged task must have ended once: one webhook-id per webhook task, one
 * token per poll task (one handed out again after a kill carries the same id and token), one accepted
 * callback, nothing left `matched`/`in_progress` (those still open after the drain are printed with
 * their ids and delivery modes).
 *
 *   node --import tsx bench/cluster-harness.ts            (BENCH_QUICK=1 for a short run)
 *
 * Needs /usr/lib/postgresql/15/bin (PG_BIN), redis-server and nginx (NGINX_BIN); runs as root (the
 * cluster then belongs to the `postgres` user) or as any user.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { newAgentKey } from '../test/helpers/agents.ts';
import { makeReceipt } from '../test/helpers/receipts.ts';
import { startNginx, startPostgresCluster, startRedis } from './cluster.ts';
import { freePort, repoRoot, startService, withCleanup, type Cleanup, type Server } from './lib.ts';

const quick = Boolean(process.env.BENCH_QUICK);
const KILLS = quick ? 5 : 20;
const WRITERS = 4;
const REQUESTERS = 2;
const SHUTDOWN_GRACE_MS = 5000;
const ROLLING_RESTARTS = Number(process.env.BENCH_ROLLING_RESTARTS) || 1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = (min: number, max: number) => min + Math.random() * (max - min);

/** The parts of the service's answers the harness reads. */
interface Answer {
  data: { id: string; slug: string; token: string; account: { id: string } };
  post: { id: string };
  userVote: 1 | -1 | null;
}

interface Outcome {
  status: number;
  ms: number;
  body: unknown;
}

async function call(base: string, method: string, path: string, body?: unknown, token?: string, timeoutMs = 60_000): Promise<Outcome> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (an nginx error page)
    }
    return { status: response.status, ms: performance.now() - started, body: parsed };
  } catch (error) {
    return { status: 0, ms: performance.now() - started, body: error instanceof Error ? error.message : String(error) };
  }
}

async function must(base: string, method: string, path: string, body?: unknown, token?: string): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await call(base, method, path, body, token);
    if (outcome.status >= 200 && outcome.status < 300) return outcome.body as Answer;
    if (attempt >= 20) throw new Error(`${method} ${path}: ${outcome.status} ${JSON.stringify(outcome.body)}`);
    await sleep(250);
  }
}

/** Everything the service acknowledged, by kind, and every failure seen (status -> count). */
class Ledger {
  acknowledged = new Map<string, string[]>();
  failures = new Map<string, number>();
  requests = 0;
  slowest = 0;
  ack(kind: string, id: string): void {
    const list = this.acknowledged.get(kind) ?? [];
    list.push(id);
    this.acknowledged.set(kind, list);
  }
  unack(kind: string, id: string): void {
    this.acknowledged.set(
      kind,
      (this.acknowledged.get(kind) ?? []).filter((known) => known !== id),
    );
  }
  saw(kind: string, outcome: Outcome): boolean {
    this.requests++;
    this.slowest = Math.max(this.slowest, outcome.ms);
    if (outcome.status >= 200 && outcome.status < 300) return true;
    const key = `${kind} ${outcome.status}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
    return false;
  }
}

interface Cluster {
  cleanup: Cleanup;
  url: string;
  nodes: (Server & { port: number })[];
  restartNode(index: number): Promise<number>;
}

async function main(cleanup: Cleanup): Promise<void> {
  const began = performance.now();
  const postgres = await startPostgresCluster(cleanup);
  const redis = await startRedis(cleanup);
  const proxyPort = await freePort();
  const url = `http://127.0.0.1:${proxyPort}`;
  const env = {
    REDIS_URL: redis.url,
    TRUST_PROXY: '1',
    PUBLIC_URL: url,
    ALLOW_PRIVATE_ENDPOINTS: 'true',
    PROVISIONAL_RATE_LIMIT_MAX: '10000000',
    CREDENTIAL_RATE_LIMIT_MAX: '10000000',
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_RETRY_BASE_MS: '200',
    WEBHOOK_MAX_ATTEMPTS: '10',
    SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
    DATABASE_TIMEOUT_MS: '2000',
    // A poll answer lost with a killed node strands its task until the lease runs out: well inside the drain's minute.
    POLL_LEASE_MS: '15000',
  };
  const ports = [await freePort(), await freePort(), await freePort()];
  // The compiled service when it is built (npm run build): a restart then skips compiling TypeScript.
  const entry = existsSync(join(repoRoot, 'dist/main.js')) ? 'dist/main.js' : 'src/main.ts';
  const start = (index: number) => startService(postgres.url, cleanup, { env, entry, name: `node${index + 1}`, port: ports[index]!, readyTimeoutMs: 180_000 });
  // Started together on the empty database: one of them migrates, the others wait for it.
  const nodes = (await Promise.all(ports.map((_, index) => start(index)))).map((server, index) => ({ ...server, port: ports[index]! }));
  const nginx = await startNginx(
    cleanup,
    ports.map((port) => `127.0.0.1:${port}`),
    proxyPort,
  );
  const cluster: Cluster = {
    cleanup,
    url,
    nodes,
    async restartNode(index) {
      const started = performance.now();
      nodes[index] = { ...(await start(index)), port: ports[index]! };
      return performance.now() - started;
    },
  };
  console.error(`cluster up (${entry}): ${url} -> ${ports.join(', ')}; PostgreSQL ${postgres.url}; Redis ${redis.url}`);

  const ledger = new Ledger();
  let running = true;

  // --- agents -------------------------------------------------------------------------------
  const owner = (await must(url, 'POST', '/v1/auth/signup', { email: `owner-${randomUUID()}@example.test`, password: 'correct horse battery' })).data.token;
  const webhookIds = new Map<string, Set<string>>();
  const deliveries = new Map<string, number>();
  const callbacksAccepted = new Map<string, number>();
  const callbacksRefused = new Map<string, number>();
  const countCallback = (taskId: string, outcome: Outcome) => {
    const map = outcome.status === 200 ? callbacksAccepted : callbacksRefused;
    map.set(taskId, (map.get(taskId) ?? 0) + 1);
  };
  const agentServer = createServer((request, response) => {
    // The registry's health probe (a signed GET with no body): answered, not a delivery.
    if (request.method !== 'POST') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { taskId: string; taskToken: string };
      const ids = webhookIds.get(body.taskId) ?? new Set<string>();
      ids.add(String(request.headers['webhook-id']));
      webhookIds.set(body.taskId, ids);
      deliveries.set(body.taskId, (deliveries.get(body.taskId) ?? 0) + 1);
      response.writeHead(202, { 'content-type': 'application/json' }).end('{}');
      // The agent works, then reports through the proxy, retrying until the service answers.
      void (async () => {
        for (;;) {
          const outcome = await call(url, 'POST', `/v1/tasks/${body.taskId}/callback`, { taskToken: body.taskToken, result: { ok: true } });
          if (outcome.status === 200 || outcome.status === 409 || outcome.status === 404) return countCallback(body.taskId, outcome);
          await sleep(200);
        }
      })();
    });
  });
  await new Promise<void>((resolve) => agentServer.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise<void>((resolve) => (agentServer.closeAllConnections(), agentServer.close(() => resolve()))));
  const hook = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}/hook`;
  const webhookAgent = (
    await must(
      url,
      'POST',
      '/v1/agents',
      { name: 'Harness webhook agent', description: 'Takes tasks by webhook', endpoint: hook, protocols: ['rest'], categories: ['productivity'] },
      owner,
    )
  ).data.id as string;
  await must(url, 'POST', `/v1/agents/${webhookAgent}/webhook-secret`, {}, owner);
  const pollAgent = (
    await must(
      url,
      'POST',
      '/v1/agents',
      { name: 'Harness poll agent', description: 'Takes tasks by long poll', deliveryMode: 'poll', protocols: ['rest'], categories: ['productivity'] },
      owner,
    )
  ).data.id as string;
  for (const agentId of [webhookAgent, pollAgent]) await must(url, 'POST', `/v1/agents/${agentId}/heartbeat`, { status: 'available' }, owner);
  const polledTimes = new Map<string, number>();
  // Each poll task's tokens as handed out: a task handed out again (its answer lost with a node) must carry the same one.
  const polledTokens = new Map<string, Set<string>>();
  // The poll agent keeps polling after the load stops, until the tasks have settled.
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const outcome = await call(url, 'GET', `/v1/agents/${pollAgent}/tasks/poll?wait=25&limit=5`, undefined, owner);
      if (outcome.status !== 200) {
        await sleep(200);
        continue;
      }
      for (const task of (outcome.body as { data: { taskId: string; taskToken: string }[] }).data) {
        polledTimes.set(task.taskId, (polledTimes.get(task.taskId) ?? 0) + 1);
        polledTokens.set(task.taskId, (polledTokens.get(task.taskId) ?? new Set<string>()).add(task.taskToken));
        void (async () => {
          for (;;) {
            const done = await call(url, 'POST', `/v1/tasks/${task.taskId}/callback`, { taskToken: task.taskToken, result: { ok: true } });
            if (done.status === 200 || done.status === 409 || done.status === 404) return countCallback(task.taskId, done);
            await sleep(200);
          }
        })();
      }
    }
  })();

  // --- load -----------------------------------------------------------------------------------
  const subjectKey = newAgentKey();
  const subject = (
    await must(
      url,
      'POST',
      '/v1/agents',
      { name: 'Harness subject', description: 'Is talked about', pubkey: subjectKey.pubkey, protocols: ['rest'], categories: ['productivity'] },
      owner,
    )
  ).data;
  const writers = await Promise.all(
    Array.from({ length: WRITERS }, async (_, index) => {
      const email = `writer-${index}-${randomUUID()}@example.test`;
      const token = (await must(url, 'POST', '/v1/auth/signup', { email, password: 'correct horse battery' })).data.token as string;
      const username = `w${index}_${randomUUID().slice(0, 8)}`;
      const profileId = (await must(url, 'POST', '/v1/users', { username, displayName: `Writer ${index}` }, token)).data.id as string;
      const key = newAgentKey();
      const agent = (
        await must(
          url,
          'POST',
          '/v1/agents',
          {
            name: `Harness issuer ${index} ${randomUUID().slice(0, 6)}`,
            description: 'Writes receipts',
            pubkey: key.pubkey,
            protocols: ['rest'],
            categories: ['productivity'],
          },
          token,
        )
      ).data;
      return { token, username, profileId, key, agentSlug: agent.slug as string };
    }),
  );
  const posts: string[] = [];
  const writing = writers.map(async (writer, index) => {
    let step = 0;
    const followed = new Set<string>();
    while (running) {
      step++;
      const kind = ['signup', 'agent', 'receipt', 'post', 'vote', 'follow'][Math.floor(Math.random() * 6)]!;
      if (kind === 'signup') {
        const outcome = await call(url, 'POST', '/v1/auth/signup', { email: `s-${randomUUID()}@example.test`, password: 'correct horse battery' });
        if (ledger.saw(kind, outcome)) ledger.ack('accounts', (outcome.body as Answer).data.account.id);
      } else if (kind === 'agent') {
        const outcome = await call(
          url,
          'POST',
          '/v1/agents',
          { name: `Harness ${randomUUID()}`, description: 'Registered under load', protocols: ['rest'], categories: ['productivity'] },
          writer.token,
        );
        if (ledger.saw(kind, outcome)) ledger.ack('agents', (outcome.body as Answer).data.id);
      } else if (kind === 'receipt') {
        const receipt = makeReceipt('outcome', { agent: writer.agentSlug, key: writer.key }, { agent: subject.slug, key: subjectKey });
        const outcome = await call(url, 'POST', '/v1/trust-receipts', receipt);
        if (ledger.saw(kind, outcome)) ledger.ack('trust_receipts', receipt.receiptId);
      } else if (kind === 'post') {
        const outcome = await call(url, 'POST', '/v1/social/posts', { body: `Post ${index}.${step} under load` }, writer.token);
        if (ledger.saw(kind, outcome)) {
          const id = (outcome.body as Answer).post.id as string;
          ledger.ack('posts', id);
          posts.push(id);
        }
      } else if (kind === 'vote' && posts.length > 0) {
        const postId = posts[Math.floor(Math.random() * posts.length)]!;
        const outcome = await call(url, 'POST', `/v1/social/posts/${postId}/vote`, { value: 1 }, writer.token);
        // Voting again with the same value takes the vote back: the answer's userVote says which it was.
        if (ledger.saw(kind, outcome)) {
          if ((outcome.body as Answer).userVote === 1) ledger.ack('post_votes', `${postId}|${writer.profileId}`);
          else ledger.unack('post_votes', `${postId}|${writer.profileId}`);
        }
      } else if (kind === 'follow') {
        const other = writers[Math.floor(Math.random() * writers.length)]!;
        if (other === writer || followed.has(other.username)) continue;
        const outcome = await call(url, 'POST', `/v1/social/users/${other.username}/follow`, undefined, writer.token);
        if (ledger.saw(kind, outcome)) {
          followed.add(other.username);
          ledger.ack('follows', `${writer.profileId}|${other.profileId}`);
        }
      }
    }
  });
  const requesterToken = (await must(url, 'POST', '/v1/auth/signup', { email: `requester-${randomUUID()}@example.test`, password: 'correct horse battery' }))
    .data.token as string;
  const requesting = Array.from({ length: REQUESTERS }, async (_, index) => {
    while (running) {
      const agentId = index % 2 === 0 ? webhookAgent : pollAgent;
      const outcome = await call(url, 'POST', '/v1/tasks', { description: 'Summarise this report', agentId }, requesterToken);
      if (ledger.saw('task', outcome)) ledger.ack('tasks', (outcome.body as Answer).data.id);
      await sleep(50);
    }
  });

  // --- breaking things ----------------------------------------------------------------------
  const figures: Record<string, unknown> = {};
  await sleep(3000);
  const restarts: number[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    await sleep(between(500, 3000));
    const index = Math.floor(Math.random() * nodes.length);
    cluster.nodes[index]!.child.kill('SIGKILL');
    await new Promise((resolve) => cluster.nodes[index]!.child.once('exit', resolve));
    restarts.push(await cluster.restartNode(index));
    console.error(`kill -9 ${kill + 1}/${KILLS}: node${index + 1} back after ${Math.round(restarts.at(-1)!)} ms`);
  }
  figures.kills = { count: KILLS, restartMsMedian: Math.round(restarts.sort((a, b) => a - b)[Math.floor(restarts.length / 2)]!) };

  for (const mode of ['fast', 'immediate'] as const) {
    const probe = await outage(cluster, ledger, () => postgres.restart(mode, 3000));
    figures[`postgres -m ${mode}`] = probe;
    console.error(`PostgreSQL -m ${mode}:`, probe);
  }

  const redisDown = performance.now();
  const failuresBefore = ledger.failures.size === 0 ? 0 : [...ledger.failures.values()].reduce((a, b) => a + b, 0);
  const requestsBefore = ledger.requests;
  await redis.stop();
  await sleep(5000);
  await redis.start();
  await sleep(2000);
  figures.redis = {
    downMs: Math.round(performance.now() - redisDown - 2000),
    requests: ledger.requests - requestsBefore,
    failed: [...ledger.failures.values()].reduce((a, b) => a + b, 0) - failuresBefore,
  };
  console.error('Redis stopped 5 s:', figures.redis);

  const rollingFailuresBefore = [...ledger.failures.values()].reduce((a, b) => a + b, 0);
  const failuresBeforeRolling = new Map(ledger.failures);
  const rollingRequestsBefore = ledger.requests;
  const accessBefore = nginx.accessLog().length;
  const errorsBefore = nginx.errorLog().length;
  const exitMs: number[] = [];
  for (let round = 0; round < ROLLING_RESTARTS; round++) {
    for (let index = 0; index < nodes.length; index++) {
      const stopped = performance.now();
      await cluster.nodes[index]!.stop();
      exitMs.push(performance.now() - stopped);
      await cluster.restartNode(index);
      console.error(`rolling restart ${round + 1}/${ROLLING_RESTARTS}: node${index + 1} exited ${Math.round(exitMs.at(-1)!)} ms after SIGTERM`);
    }
  }
  const rollingLog = nginx.accessLog().slice(accessBefore);
  // Why nginx failed requests it did not retry: the error log's reason, without its address details.
  const rollingErrors = nginx
    .errorLog()
    .slice(errorsBefore)
    .map((line) => /\[(?:error|warn)\] [^:]*: \*\d+ ([^,]*)/.exec(line)?.[1] ?? line)
    .reduce((counts, reason) => counts.set(reason, (counts.get(reason) ?? 0) + 1), new Map<string, number>());
  figures.rolling = {
    rounds: ROLLING_RESTARTS,
    requests: ledger.requests - rollingRequestsBefore,
    failedAtClient: [...ledger.failures.values()].reduce((a, b) => a + b, 0) - rollingFailuresBefore,
    retriedByNginx: rollingLog.filter((line) => line.split(' ')[3]?.includes(',')).length,
    exitedAfterSigtermMs: [Math.round(Math.min(...exitMs)), Math.round(Math.max(...exitMs))],
    failedAtClientByKind: Object.fromEntries(
      [...ledger.failures].map(([key, n]) => [key, n - (failuresBeforeRolling.get(key) ?? 0)]).filter(([, n]) => Number(n) > 0),
    ),
    nginxErrors: Object.fromEntries(rollingErrors),
    // Answered 502 by nginx, with the connect time: 0.000 on a kept-alive connection it reused (or a quick new one).
    failed502: rollingLog.filter((line) => line.startsWith('502 ')).map((line) => line.split(' ').slice(1, 2).concat(line.split(' ').slice(4)).join(' ')),
  };
  console.error('rolling restart:', figures.rolling);

  // --- settle and verify ----------------------------------------------------------------------
  running = false;
  await Promise.all([...writing, ...requesting]);
  const database = new pg.Client({ connectionString: postgres.url });
  await database.connect();
  cleanup.add(() => database.end());
  const taskIds = ledger.acknowledged.get('tasks') ?? [];
  const settleStarted = performance.now();
  for (;;) {
    const open = await database.query(`select count(*)::int as n from tasks where id = any($1) and status in ('pending', 'matched', 'in_progress')`, [taskIds]);
    if (open.rows[0].n === 0 || performance.now() - settleStarted > 60_000) break;
    await sleep(500);
  }
  polling = false;
  await poller;

  const lost: Record<string, number> = {};
  const lookups: Record<string, string> = {
    accounts: 'select id as key from accounts where id = any($1)',
    agents: 'select id as key from agents where id = any($1)',
    trust_receipts: 'select receipt_id as key from trust_receipts where receipt_id = any($1)',
    posts: 'select id as key from posts where id = any($1)',
    post_votes: `select post_id || '|' || profile_id as key from post_votes where post_id || '|' || profile_id = any($1)`,
    follows: `select follower_id || '|' || followee_id as key from follows where follower_id || '|' || followee_id = any($1)`,
    tasks: 'select id as key from tasks where id = any($1)',
  };
  let writes = 0;
  for (const [kind, ids] of ledger.acknowledged) {
    const unique = [...new Set(ids)];
    writes += unique.length;
    const found = new Set((await database.query(lookups[kind]!, [unique])).rows.map((row: { key: string }) => row.key));
    lost[kind] = unique.filter((id) => !found.has(id)).length;
  }
  const statuses = await database.query(`select status, count(*)::int as n from tasks where id = any($1) group by status`, [taskIds]);
  const byStatus = Object.fromEntries(statuses.rows.map((row: { status: string; n: number }) => [row.status, row.n]));
  const completed = new Set(
    (await database.query(`select id from tasks where id = any($1) and status = 'completed'`, [taskIds])).rows.map((row: { id: string }) => row.id),
  );
  // Tasks still open after the drain, each with how its agent takes work and what the agent saw of it: the ones to look into.
  const stillOpen = (
    await database.query(
      `select tasks.id, tasks.status, agents.delivery_mode, tasks.poll_handouts, tasks.poll_lease_until, tasks.delivered_at, tasks.updated_at
       from tasks left join agents on agents.id = tasks.assigned_agent_id
       where tasks.id = any($1) and tasks.status in ('pending', 'matched', 'in_progress') order by tasks.created_at`,
      [taskIds],
    )
  ).rows.map(
    (row: {
      id: string;
      status: string;
      delivery_mode: string | null;
      poll_handouts: number;
      poll_lease_until: string | null;
      delivered_at: string | null;
      updated_at: string;
    }) => ({
      id: row.id,
      status: row.status,
      deliveryMode: row.delivery_mode,
      pollHandouts: row.poll_handouts,
      pollLeaseUntil: row.poll_lease_until,
      deliveredAt: row.delivered_at,
      updatedAt: row.updated_at,
      seenByAgent: (deliveries.get(row.id) ?? 0) + (polledTimes.get(row.id) ?? 0),
      callbacksRefused: callbacksRefused.get(row.id) ?? 0,
    }),
  );
  for (const task of stillOpen)
    console.error(
      `still open after the drain: task ${task.id} ${task.status}, delivery mode ${task.deliveryMode ?? 'none'}, seen by the agent ${task.seenByAgent} times, handed out by polls ${task.pollHandouts} times, updated ${task.updatedAt}`,
    );
  // Poll tasks handed out more than once: a poll answer lost with its node, put back in the queue when its lease ran out.
  const pollHandedOutAgain = (await database.query(`select count(*)::int as n from tasks where id = any($1) and poll_handouts > 1`, [taskIds])).rows[0]
    .n as number;
  const result = {
    mode: quick ? 'quick' : 'full',
    durationS: Math.round((performance.now() - began) / 1000),
    requests: ledger.requests,
    slowestRequestMs: Math.round(ledger.slowest),
    acknowledgedWrites: writes,
    byKind: Object.fromEntries([...ledger.acknowledged].map(([kind, ids]) => [kind, new Set(ids).size])),
    lost,
    failures: Object.fromEntries(ledger.failures),
    tasks: {
      acknowledged: taskIds.length,
      byStatus,
      stuck: (byStatus.pending ?? 0) + (byStatus.matched ?? 0) + (byStatus.in_progress ?? 0),
      stillOpen,
      webhookTasksWithMoreThanOneWebhookId: [...webhookIds.values()].filter((ids) => ids.size > 1).length,
      webhookRedeliveriesSameId: [...deliveries.values()].reduce((sum, n) => sum + n - 1, 0),
      pollTasksSeenMoreThanOnce: [...polledTimes.values()].filter((n) => n > 1).length,
      pollTasksHandedOutAgain: pollHandedOutAgain,
      pollTasksSeenWithAnotherToken: [...polledTokens.values()].filter((tokens) => tokens.size > 1).length,
      tasksWithMoreThanOneAcceptedCallback: [...callbacksAccepted.values()].filter((n) => n > 1).length,
      completedWithoutAcceptedCallback: [...completed].filter((id) => !callbacksAccepted.has(id)).length,
    },
    ...figures,
  };
  console.log(JSON.stringify(result, null, 2));
  // Every acknowledged task ended exactly once in the agent's view: one webhook-id per webhook task, one token per poll task, one accepted answer.
  if (
    Object.values(lost).some((n) => n > 0) ||
    result.tasks.stuck > 0 ||
    result.tasks.tasksWithMoreThanOneAcceptedCallback > 0 ||
    result.tasks.webhookTasksWithMoreThanOneWebhookId > 0 ||
    result.tasks.pollTasksSeenWithAnotherToken > 0
  )
    process.exitCode = 1;
}

/**
 * Runs `breakIt` (which takes the database down and brings it back) while probing every node
 * directly once every 100 ms: the slowest answer during the outage, what they answered, and how long
 * after the database was back every node's /ready said 200 again.
 */
async function outage(cluster: Cluster, ledger: Ledger, breakIt: () => Promise<void>) {
  const statuses = new Map<number, number>();
  let slowest = 0;
  let probing = true;
  let sawReady503 = false;
  const probes = (async () => {
    while (probing) {
      const index = Math.floor(Math.random() * cluster.nodes.length);
      const node = cluster.nodes[index]!;
      const [ready, read] = await Promise.all([
        call(node.url, 'GET', '/ready', undefined, undefined, 30_000),
        call(node.url, 'GET', '/v1/social/posts?limit=1', undefined, undefined, 30_000),
      ]);
      if (ready.status === 503) sawReady503 = true;
      slowest = Math.max(slowest, read.ms, ready.ms);
      statuses.set(read.status, (statuses.get(read.status) ?? 0) + 1);
      await sleep(100);
    }
  })();
  const before = ledger.requests;
  await sleep(500);
  const downAt = performance.now();
  await breakIt();
  const backAt = performance.now();
  let allReadyMs = 0;
  for (;;) {
    const ready = await Promise.all(cluster.nodes.map((node) => call(node.url, 'GET', '/ready', undefined, undefined, 5000)));
    if (ready.every((outcome) => outcome.status === 200)) break;
    allReadyMs = performance.now() - backAt;
    await sleep(100);
  }
  allReadyMs = performance.now() - backAt;
  probing = false;
  await probes;
  return {
    outageMs: Math.round(backAt - downAt),
    everyNodeReadyAfterMs: Math.round(allReadyMs),
    ready503During: sawReady503,
    probeStatuses: Object.fromEntries(statuses),
    slowestProbeMs: Math.round(slowest),
    loadRequestsDuring: ledger.requests - before,
  };
}

await withCleanup(main);
