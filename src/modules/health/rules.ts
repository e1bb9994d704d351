/**
 * An agent's measured health from its hourly rows (docs/registry.md, "Health"): one rule, used by
 * the agent view, routing and discovery.
 */
export type HealthStatus = 'up' | 'degraded' | 'down' | 'unknown';

/** One UTC hour of an agent's checks, as the database holds it (and as this node adds to it). */
export interface HourRow {
  hour: string;
  ok: number;
  failed: number;
  okMsTotal: number;
  failuresSinceOk: number;
  lastAt: string;
  lastOkAt: string | null;
  lastFailureAt: string | null;
  lastFailure: string | null;
}

export interface Health {
  status: HealthStatus;
  /** Share of successful checks over the last 24 hours (null: none). */
  uptime24h: number | null;
  uptime7d: number | null;
  /** Median over the last 24 hours' hours of their mean successful response time. */
  p50Ms: number | null;
  lastCheckedAt: string | null;
  lastFailure: { at: string; reason: string } | null;
  /** The last 24 hours, oldest first: each hour's share of successful checks, null without checks. */
  hours: (number | null)[];
}

/** This many failed checks in a row, with no success between them, make an agent `down`. */
export const DOWN_AFTER_FAILURES = 3;
/** Below this share of successful checks over 24 hours an agent is `degraded`. */
export const DEGRADED_BELOW_UPTIME = 0.9;
const HOUR_MS = 3_600_000;

export const hourOf = (atMs: number): string => new Date(Math.floor(atMs / HOUR_MS) * HOUR_MS).toISOString();

export const UNKNOWN_HEALTH: Health = {
  status: 'unknown',
  uptime24h: null,
  uptime7d: null,
  p50Ms: null,
  lastCheckedAt: null,
  lastFailure: null,
  hours: Array<null>(24).fill(null),
};

const share = (rows: HourRow[]): number | null => {
  const ok = rows.reduce((sum, row) => sum + row.ok, 0);
  const all = ok + rows.reduce((sum, row) => sum + row.failed, 0);
  return all === 0 ? null : Math.round((ok / all) * 10_000) / 10_000;
};

/** Failures since the last success, walking back through the hours. */
export function consecutiveFailures(newestFirst: HourRow[]): number {
  let failures = 0;
  for (const row of newestFirst) {
    failures += row.failuresSinceOk;
    if (row.ok > 0) break;
  }
  return failures;
}

export function summarize(rows: Iterable<HourRow>, nowMs: number, slowMs: number): Health {
  const currentHour = Date.parse(hourOf(nowMs));
  const within = (row: HourRow, hours: number) => Date.parse(row.hour) > currentHour - hours * HOUR_MS;
  const week = [...rows].filter((row) => within(row, 168)).sort((a, b) => b.hour.localeCompare(a.hour));
  const day = week.filter((row) => within(row, 24));
  if (day.length === 0) return { ...UNKNOWN_HEALTH, uptime7d: share(week), lastCheckedAt: week[0]?.lastAt ?? null, lastFailure: lastFailureOf(week) };
  const means = day
    .filter((row) => row.ok > 0)
    .map((row) => row.okMsTotal / row.ok)
    .sort((a, b) => a - b);
  const p50Ms =
    means.length === 0 ? null : Math.round(means.length % 2 ? means[(means.length - 1) / 2]! : (means[means.length / 2 - 1]! + means[means.length / 2]!) / 2);
  const uptime24h = share(day);
  const failures = consecutiveFailures(week);
  const status: HealthStatus =
    failures >= DOWN_AFTER_FAILURES
      ? 'down'
      : failures > 0 || (uptime24h !== null && uptime24h < DEGRADED_BELOW_UPTIME) || (p50Ms !== null && p50Ms > slowMs)
        ? 'degraded'
        : 'up';
  const byHour = new Map(day.map((row) => [Date.parse(row.hour), row]));
  const hours = Array.from({ length: 24 }, (_, index) => {
    const row = byHour.get(currentHour - (23 - index) * HOUR_MS);
    return row ? share([row]) : null;
  });
  return {
    status,
    uptime24h,
    uptime7d: share(week),
    p50Ms,
    lastCheckedAt: week.reduce((last, row) => (row.lastAt > last ? row.lastAt : last), ''),
    lastFailure: lastFailureOf(week),
    hours,
  };
}

function lastFailureOf(rows: HourRow[]): Health['lastFailure'] {
  let last: HourRow | null = null;
  for (const row of rows) if (row.lastFailureAt && (!last || row.lastFailureAt > last.lastFailureAt!)) last = row;
  return last ? { at: last.lastFailureAt!, reason: last.lastFailure ?? 'failed' } : null;
}
