/**
 * Background work on several nodes: three nodes started together on one empty PostgreSQL schema
 * migrate it once, and each scheduled pass of task expiry, the trust evidence sweep, event pruning,
 * Stripe transfers, the verified domains' re-check and the health prober's enrolment runs on one of them, so the three together run no more passes than one node would.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp, type AgentryApp } from '../../src/app.ts';
import { BACKGROUND_JOBS, type BackgroundJob } from '../../src/db/background-passes.ts';
import { loadConfig } from '../../src/config.ts';
import { migrationNames } from '../../src/db/migrations/index.ts';
import { TEST_SECRETS_KEY, testDatabaseUrl, withSchemaLock, dropTestSchema } from '../helpers/app.ts';
import { startStripeStandIn } from '../helpers/stripe-stand-in.ts';
import { waitFor } from '../helpers/wait.ts';

/** Every job's interval in this test: DELIVERY_POLL_INTERVAL_MS for expiry and transfers, the overrides for the others. */
const INTERVAL_MS = 200;
/** How much earlier than an interval a pass may fall due again (src/db/background-passes.ts). */
const MARGIN_MS = Math.min(INTERVAL_MS / 4, 1_000);
const PASSES_TO_SEE = 5;

/** This node's scheduled passes so far, by job, from its /metrics. */
async function passesOf(node: AgentryApp): Promise<Record<BackgroundJob, number>> {
  const response = await node.server.inject({ method: 'GET', url: '/metrics' });
  assert.equal(response.statusCode, 200, response.body);
  const counts = Object.fromEntries(BACKGROUND_JOBS.map((job) => [job, 0])) as Record<BackgroundJob, number>;
  for (const [, job, value] of response.body.matchAll(/^agentry_background_passes_total\{job="([a-z_]+)"\} (\d+)$/gm))
    counts[job as BackgroundJob] = Number(value);
  return counts;
}

const sumOf = (counts: Record<BackgroundJob, number>[], job: BackgroundJob) => counts.reduce((total, count) => total + count[job], 0);

describe('background work on three nodes', () => {
  const oneNode = testDatabaseUrl ? false : 'SQLite is one node per database file, so its passes cannot overlap; the PostgreSQL run starts three nodes';
  it('migrates once when they start together, and runs each scheduled pass on one node', { skip: oneNode }, async () => {
    const url = testDatabaseUrl!;
    const schema = `t_background_${process.pid}_${Date.now().toString(36)}`;
    const stripe = await startStripeStandIn();
    const config = loadConfig({
      DATABASE_URL: url,
      SECRETS_KEY: TEST_SECRETS_KEY,
      LOG_LEVEL: 'silent',
      STRIPE_SECRET_KEY: 'sk_test_standin',
      STRIPE_WEBHOOK_SECRET: 'whsec_standin_secret',
      STRIPE_API_BASE: stripe.url,
      DELIVERY_POLL_INTERVAL_MS: String(INTERVAL_MS),
      HEALTH_PROBE_INTERVAL_MS: String(INTERVAL_MS),
    });
    const overrides = {
      logger: false,
      webRoot: null,
      databaseSchema: schema,
      backgroundIntervalsMs: { trustEvidenceSweep: INTERVAL_MS, eventPrune: INTERVAL_MS, domainRecheck: INTERVAL_MS },
    };
    // Three nodes start at once on an empty schema: each migrates as it starts.
    const starts = await withSchemaLock(url, () => Promise.allSettled([0, 1, 2].map(() => buildApp(config, overrides))));
    const nodes = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    try {
      assert.deepEqual(
        starts.map((start) => start.status),
        ['fulfilled', 'fulfilled', 'fulfilled'],
        `every node started: ${starts.map((start) => (start.status === 'rejected' ? String(start.reason) : 'ok')).join('; ')}`,
      );
      const migrated = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(nodes[0]!.database.db);
      assert.deepEqual(
        migrated.rows.map((row) => row.name),
        [...migrationNames].sort(),
        'each migration is recorded once',
      );

      const before = await waitFor(
        'every job to run a pass',
        () => Promise.all(nodes.map(passesOf)),
        (counts) => BACKGROUND_JOBS.every((job) => sumOf(counts, job) >= 1),
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      const watchedFrom = Date.now();
      await waitFor(
        `every job to run ${PASSES_TO_SEE} more passes`,
        () => Promise.all(nodes.map(passesOf)),
        (counts) => BACKGROUND_JOBS.every((job) => sumOf(counts, job) >= sumOf(before, job) + PASSES_TO_SEE),
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      // The workers stop (the servers stay up to answer /metrics): no pass starts after this.
      for (const node of nodes)
        await Promise.all([
          node.deliveryWorker.stop(),
          node.transferWorker!.stop(),
          node.trustEvidenceSweep.stop(),
          node.events.stop(),
          node.domainProofs.stop(),
          node.health.prober.stop(),
        ]);
      const watchedMs = Date.now() - watchedFrom;
      const counts = await Promise.all(nodes.map(passesOf));
      const passes = await sql<{ job: string; pass: number }>`select job, pass from background_passes`.execute(nodes[0]!.database.db);
      const recorded = Object.fromEntries(passes.rows.map((row) => [row.job, Number(row.pass)]));
      // Each pass is due at least an interval (less the margin) after the one before, whichever node
      // ran it: one schedule fits this many in the time watched, plus one that was already being
      // taken when the first count was read.
      const mostByOneSchedule = Math.floor(watchedMs / (INTERVAL_MS - MARGIN_MS)) + 2;
      for (const job of BACKGROUND_JOBS) {
        const byNode = JSON.stringify(counts.map((count) => count[job]));
        assert.equal(sumOf(counts, job), recorded[job], `${job}: every numbered pass ran on exactly one node (${byNode})`);
        const watched = sumOf(counts, job) - sumOf(before, job);
        assert.ok(
          watched <= mostByOneSchedule,
          `${job}: ${watched} passes in ${watchedMs} ms by three nodes, at most ${mostByOneSchedule} on one schedule (${byNode})`,
        );
      }
    } finally {
      for (const node of nodes) await node.close().catch(() => {});
      await stripe.close();
      await dropTestSchema(url, schema);
    }
  });
});
