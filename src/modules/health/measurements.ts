/**
 * Every node's view of the agents' measured health, and the way outcomes reach it.
 *
 * Outcomes (a probe's, a delivery's) are counted in memory at once, so this node's views show them
 * at once and a delivery costs no statement of its own. They are written in batches: the first
 * outcome after a quiet second is written at once, the ones after it at most once a second, all the
 * agents and hours of a batch in one upsert (`agent_health_hours`). Every node reads back the rows
 * written since its last read, every `refreshMs`, so outcomes seen on one node count on the others
 * within about a second and a half. A stopping node writes what it holds; a node that dies loses at
 * most its last second of outcomes.
 */
import type { Clock } from '../../lib/clock.ts';
import { hourOf, summarize, UNKNOWN_HEALTH, type Health, type HourRow } from './rules.ts';
import type { HealthStore, HourDelta } from './store.ts';

export interface Outcome {
  ok: boolean;
  /** How long the check took; counted for successes only. */
  ms: number;
  /** What went wrong, in words the agent's owner may read. */
  reason?: string;
}

export interface MeasurementsOptions {
  store: HealthStore;
  clock: Clock;
  /** Above this median response time an agent is `degraded`. */
  slowMs: number;
  writeIntervalMs?: number;
  refreshMs?: number;
  onError: (error: unknown) => void;
}

/** Rows re-read before the last one seen: a write committed late, or by a node whose clock is behind, is not missed. */
const REREAD_MARGIN_MS = 5_000;
const WEEK_MS = 7 * 24 * 3_600_000;

export function createMeasurements({ store, clock, slowMs, writeIntervalMs = 1_000, refreshMs = 500, onError }: MeasurementsOptions) {
  /** What the database holds, as last read, by agent and hour. */
  const known = new Map<string, Map<string, HourRow>>();
  /** What this node counted and has not written yet, by agent and hour. */
  let pending = new Map<string, HourDelta>();
  let lastWriteAt = 0;
  let writeTimer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;
  let readMark: string | null = null;
  let refreshTimer: NodeJS.Timeout | null = null;
  let stopped = false;
  /**
   * Writes and reads take turns: a read while a batch is being written could miss the batch (no
   * longer pending, not yet committed) and show this node's own outcomes gone for a moment.
   */
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const run = turn.then(work, work);
    turn = run.catch(() => {});
    return run;
  };

  const merge = (into: HourRow | undefined, add: HourRow): HourRow => {
    if (!into) return { ...add };
    const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);
    const failureIsNewer = add.lastFailureAt !== null && (into.lastFailureAt === null || add.lastFailureAt > into.lastFailureAt);
    return {
      hour: into.hour,
      ok: into.ok + add.ok,
      failed: into.failed + add.failed,
      okMsTotal: into.okMsTotal + add.okMsTotal,
      failuresSinceOk: add.lastOkAt !== null ? add.failuresSinceOk : into.failuresSinceOk + add.failuresSinceOk,
      lastAt: later(into.lastAt, add.lastAt)!,
      lastOkAt: later(into.lastOkAt, add.lastOkAt),
      lastFailureAt: later(into.lastFailureAt, add.lastFailureAt),
      lastFailure: failureIsNewer ? add.lastFailure : into.lastFailure,
    };
  };

  const write = (): Promise<void> => inTurn(writeNow);

  async function writeNow(): Promise<void> {
    writeTimer = null;
    if (pending.size === 0) return;
    const batch = [...pending.values()];
    pending = new Map();
    lastWriteAt = Date.now();
    try {
      await store.addHours(batch, clock.now().toISOString());
    } catch (error) {
      // Put back, under what came meanwhile: the next write carries both.
      for (const delta of batch) {
        const key = `${delta.agentId} ${delta.hour}`;
        const later = pending.get(key);
        pending.set(key, later ? { ...merge(delta, later), agentId: delta.agentId } : delta);
      }
      onError(error);
      scheduleWrite();
    }
  }

  function scheduleWrite(): void {
    if (writeTimer || stopped) return;
    const wait = Math.max(0, lastWriteAt + writeIntervalMs - Date.now());
    writeTimer = setTimeout(() => {
      writing = write().finally(() => (writing = null));
    }, wait);
    writeTimer.unref();
  }

  function remember(agentId: string, row: HourRow, replace: boolean): void {
    let hours = known.get(agentId);
    if (!hours) known.set(agentId, (hours = new Map<string, HourRow>()));
    hours.set(row.hour, replace ? row : merge(hours.get(row.hour), row));
  }

  const refresh = (): Promise<void> => inTurn(refreshNow);

  async function refreshNow(): Promise<void> {
    const now = clock.now().getTime();
    const rows = await store.hoursChanged(readMark === null ? { hour: hourOf(now - WEEK_MS) } : { updatedAt: readMark });
    let newest = readMark;
    for (const row of rows) {
      // The database's row includes everything written; what this node holds unwritten goes on top.
      const unwritten = pending.get(`${row.agentId} ${row.hour}`);
      remember(row.agentId, unwritten ? merge(row, unwritten) : row, true);
      if (newest === null || row.updatedAt > newest) newest = row.updatedAt;
    }
    if (newest !== null) readMark = new Date(Math.max(0, Date.parse(newest) - REREAD_MARGIN_MS)).toISOString();
    // Hours past the week count for nothing: forget them.
    const oldest = hourOf(now - WEEK_MS);
    for (const [agentId, hours] of known) {
      for (const hour of hours.keys()) if (hour < oldest) hours.delete(hour);
      if (hours.size === 0) known.delete(agentId);
    }
  }

  const refreshLoop = () => {
    refreshTimer = setTimeout(() => {
      refresh()
        .catch(onError)
        .finally(() => {
          if (!stopped) refreshLoop();
        });
    }, refreshMs);
    refreshTimer.unref();
  };

  return {
    /** Counts one check of an agent: now in this node's views, in the database within a second. */
    record(agentId: string, outcome: Outcome): void {
      const at = clock.now();
      const iso = at.toISOString();
      const row: HourRow = {
        hour: hourOf(at.getTime()),
        ok: outcome.ok ? 1 : 0,
        failed: outcome.ok ? 0 : 1,
        okMsTotal: outcome.ok ? Math.max(0, outcome.ms) : 0,
        failuresSinceOk: outcome.ok ? 0 : 1,
        lastAt: iso,
        lastOkAt: outcome.ok ? iso : null,
        lastFailureAt: outcome.ok ? null : iso,
        lastFailure: outcome.ok ? null : (outcome.reason ?? 'failed').slice(0, 300),
      };
      const key = `${agentId} ${row.hour}`;
      pending.set(key, { ...merge(pending.get(key), row), agentId });
      remember(agentId, row, false);
      scheduleWrite();
    },
    healthOf(agentId: string): Health {
      const hours = known.get(agentId);
      return hours ? summarize(hours.values(), clock.now().getTime(), slowMs) : UNKNOWN_HEALTH;
    },
    /** Reads what every node wrote before serving, then keeps reading it. */
    async start(): Promise<void> {
      await refresh();
      refreshLoop();
    },
    /** Reads now rather than at the next refresh (tests with a manual clock). */
    refresh,
    /** Writes what this node holds now (tests; shutdown). */
    async flush(): Promise<void> {
      if (writeTimer) clearTimeout(writeTimer);
      writeTimer = null;
      await writing;
      await write();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (refreshTimer) clearTimeout(refreshTimer);
      if (writeTimer) clearTimeout(writeTimer);
      writeTimer = null;
      await writing;
      await write().catch(onError);
    },
  };
}

export type Measurements = ReturnType<typeof createMeasurements>;
