import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { claimLeasedJobs } from '../../db/leased-jobs.ts';
import { ownTables } from '../../db/tables.ts';
import type { HourRow } from './rules.ts';
import type { AgentHealthHoursTable, AgentHealthProbesTable, HealthTables } from './tables.ts';

export interface HourDelta extends HourRow {
  agentId: string;
}

const rowOf = (row: Selectable<AgentHealthHoursTable>): HourDelta => ({
  agentId: row.agent_id,
  hour: row.hour,
  ok: row.ok,
  failed: row.failed,
  okMsTotal: Number(row.ok_ms_total),
  failuresSinceOk: row.failures_since_ok,
  lastAt: row.last_at,
  lastOkAt: row.last_ok_at,
  lastFailureAt: row.last_failure_at,
  lastFailure: row.last_failure,
});

/** The later of two nullable times, in SQL both engines read alike (SQLite's max() of a NULL is NULL). */
const later = (column: string) =>
  sql<string>`${sql.raw(`CASE WHEN agent_health_hours.${column} IS NULL OR excluded.${column} > agent_health_hours.${column} THEN COALESCE(excluded.${column}, agent_health_hours.${column}) ELSE agent_health_hours.${column} END`)}`;

export function createHealthStore(database: Db, dialect: DialectName) {
  const db = ownTables<HealthTables>(database);
  return {
    /**
     * Adds a node's outcomes to the hours other nodes wrote: one statement for the whole batch. A
     * batch with a success restarts the run of failures; the failures it saw after its own last
     * success are the run now.
     */
    async addHours(deltas: HourDelta[], now: string): Promise<void> {
      if (deltas.length === 0) return;
      await db
        .insertInto('agent_health_hours')
        .values(
          deltas.map((delta) => ({
            agent_id: delta.agentId,
            hour: delta.hour,
            ok: delta.ok,
            failed: delta.failed,
            ok_ms_total: Math.round(delta.okMsTotal),
            failures_since_ok: delta.failuresSinceOk,
            last_at: delta.lastAt,
            last_ok_at: delta.lastOkAt,
            last_failure_at: delta.lastFailureAt,
            last_failure: delta.lastFailure,
            updated_at: now,
          })),
        )
        .onConflict((conflict) =>
          conflict.columns(['agent_id', 'hour']).doUpdateSet({
            ok: sql`agent_health_hours.ok + excluded.ok`,
            failed: sql`agent_health_hours.failed + excluded.failed`,
            ok_ms_total: sql`agent_health_hours.ok_ms_total + excluded.ok_ms_total`,
            failures_since_ok: sql`CASE WHEN excluded.last_ok_at IS NOT NULL THEN excluded.failures_since_ok ELSE agent_health_hours.failures_since_ok + excluded.failures_since_ok END`,
            last_at: later('last_at'),
            last_ok_at: later('last_ok_at'),
            last_failure: sql<string>`CASE WHEN agent_health_hours.last_failure_at IS NULL OR excluded.last_failure_at > agent_health_hours.last_failure_at THEN COALESCE(excluded.last_failure, agent_health_hours.last_failure) ELSE agent_health_hours.last_failure END`,
            last_failure_at: later('last_failure_at'),
            updated_at: now,
          }),
        )
        .execute();
    },
    /** Hours written since `updatedAt` (every hour from `sinceHour` on the first read). */
    async hoursChanged(since: { updatedAt: string } | { hour: string }): Promise<(HourDelta & { updatedAt: string })[]> {
      const rows = await db
        .selectFrom('agent_health_hours')
        .selectAll()
        .$if('updatedAt' in since, (qb) => qb.where('updated_at', '>=', (since as { updatedAt: string }).updatedAt))
        .$if('hour' in since, (qb) => qb.where('hour', '>=', (since as { hour: string }).hour))
        .execute();
      return rows.map((row) => ({ ...rowOf(row), updatedAt: row.updated_at }));
    },
    async pruneHours(beforeHour: string): Promise<void> {
      await db.deleteFrom('agent_health_hours').where('hour', '<', beforeHour).execute();
    },
    /** Agents not probed yet get a first probe at `runAt(id)`; agents already enrolled keep theirs. */
    async enrol(ids: string[], runAt: (id: string) => string, now: string): Promise<void> {
      if (ids.length === 0) return;
      await db
        .insertInto('agent_health_probes')
        .values(ids.map((id) => ({ id, state: 'pending' as const, run_at: runAt(id), lease_until: null, attempts: 0, updated_at: now })))
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute();
    },
    /** Due probes, leased to this node until `leaseUntil`: no other node takes them meanwhile. */
    claim: (now: string, leaseUntil: string, limit: number) =>
      claimLeasedJobs<AgentHealthProbesTable, HealthTables>(db, dialect, 'agent_health_probes', now, leaseUntil, limit),
    /** The probe is done (or put off): due again at `runAt`, for whichever node then claims it. */
    async reschedule(id: string, runAt: string, now: string): Promise<void> {
      await db.updateTable('agent_health_probes').set({ state: 'pending', run_at: runAt, lease_until: null, updated_at: now }).where('id', '=', id).execute();
    },
    async forget(id: string): Promise<void> {
      await db.deleteFrom('agent_health_probes').where('id', '=', id).execute();
    },
  };
}

export type HealthStore = ReturnType<typeof createHealthStore>;
