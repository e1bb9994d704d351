/** The tables the health module owns (migration 0049); only this module's store names them. */
import type { ColumnType } from 'kysely';

export interface AgentHealthHoursTable {
  agent_id: string;
  /** The UTC hour's start, ISO 8601. */
  hour: string;
  ok: number;
  failed: number;
  /** BIGINT: the pg driver returns it as text. */
  ok_ms_total: ColumnType<string | number, number, number>;
  /** Failures after the hour's last success (all of them when it had none): consecutive failures span hours. */
  failures_since_ok: number;
  last_at: string;
  last_ok_at: string | null;
  last_failure_at: string | null;
  last_failure: string | null;
  updated_at: string;
}

export interface AgentHealthProbesTable {
  /** The agent's id. */
  id: string;
  state: 'pending' | 'running';
  /** When its next probe is due. */
  run_at: string;
  lease_until: string | null;
  attempts: number;
  updated_at: string;
}

export interface HealthTables {
  agent_health_hours: AgentHealthHoursTable;
  agent_health_probes: AgentHealthProbesTable;
}
