import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * The recent events of each account, which `GET /v1/events` streams and replays from an id.
 *
 * Task status changes are written by triggers on `tasks`, so every writer of a status (submission,
 * polls, webhook delivery, callbacks, cancel, expiry, anything later) records its event in its own
 * transaction without knowing about the stream. An event goes to the requester and, when another
 * account owns the assigned agent, to that owner too. Each trigger then raises the `events` signal
 * with the account id (`agentry_signal`: NOTIFY on PostgreSQL, delivered at commit; a function the
 * service defines on its SQLite connection), so open streams on every node look again at once.
 *
 * Events are kept for a bounded time; `account_events_horizon` holds the highest id pruned, so an
 * older Last-Event-ID is recognised and answered with a reset.
 */
export const accountEvents: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    if (dialect === 'sqlite') await upSqlite(db);
    else await upPostgres(db);
    await sql`CREATE INDEX account_events_account ON account_events (account_id, id)`.execute(db);
    await sql`CREATE INDEX account_events_created ON account_events (created_at)`.execute(db);
    await sql`CREATE TABLE account_events_horizon (pruned_through BIGINT NOT NULL)`.execute(db);
    await sql`INSERT INTO account_events_horizon (pruned_through) VALUES (0)`.execute(db);
  },
};

/** The task's status for one recipient, as the stream sends it. */
const sqliteEventData = (role: string) => `json_object('taskId', new.id, 'status', new.status, 'at', new.updated_at, 'role', '${role}')`;

async function upSqlite(db: Kysely<unknown>) {
  await sql`CREATE TABLE account_events (id INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`.execute(
    db,
  );
  const otherOwner = `FROM agents WHERE id = new.assigned_agent_id AND owner_id IS NOT NULL AND owner_id <> new.requester_id`;
  const body = `
    INSERT INTO account_events (account_id, type, data, created_at) VALUES (new.requester_id, 'task.status', ${sqliteEventData('requester')}, new.updated_at);
    INSERT INTO account_events (account_id, type, data, created_at) SELECT owner_id, 'task.status', ${sqliteEventData('agent')}, new.updated_at ${otherOwner};
    SELECT agentry_signal('events', new.requester_id);
    SELECT agentry_signal('events', owner_id) ${otherOwner};`;
  await sql.raw(`CREATE TRIGGER tasks_status_events_ai AFTER INSERT ON tasks BEGIN ${body} END`).execute(db);
  await sql.raw(`CREATE TRIGGER tasks_status_events_au AFTER UPDATE OF status ON tasks WHEN old.status IS NOT new.status BEGIN ${body} END`).execute(db);
}

async function upPostgres(db: Kysely<unknown>) {
  await sql`CREATE TABLE account_events (id BIGSERIAL PRIMARY KEY, account_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`.execute(
    db,
  );
  // Apps sharing one database in different schemas (tests) prefix their signal channels with the
  // schema (src/db/signals.ts); the pool names it in this setting (src/db/database.ts).
  await sql
    .raw(
      `CREATE FUNCTION agentry_signal(channel TEXT, payload TEXT) RETURNS void LANGUAGE sql AS $$
         SELECT pg_notify(COALESCE(NULLIF(current_setting('agentry.signal_namespace', true), '') || '.', '') || channel, payload)
       $$`,
    )
    .execute(db);
  const data = (role: string) => `json_build_object('taskId', NEW.id, 'status', NEW.status, 'at', NEW.updated_at, 'role', '${role}')::text`;
  await sql
    .raw(
      `CREATE FUNCTION record_task_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         agent_owner TEXT;
       BEGIN
         IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
           RETURN NULL;
         END IF;
         INSERT INTO account_events (account_id, type, data, created_at) VALUES (NEW.requester_id, 'task.status', ${data('requester')}, NEW.updated_at);
         PERFORM agentry_signal('events', NEW.requester_id);
         SELECT owner_id INTO agent_owner FROM agents WHERE id = NEW.assigned_agent_id;
         IF agent_owner IS NOT NULL AND agent_owner <> NEW.requester_id THEN
           INSERT INTO account_events (account_id, type, data, created_at) VALUES (agent_owner, 'task.status', ${data('agent')}, NEW.updated_at);
           PERFORM agentry_signal('events', agent_owner);
         END IF;
         RETURN NULL;
       END $$`,
    )
    .execute(db);
  await sql`CREATE TRIGGER tasks_status_events AFTER INSERT OR UPDATE OF status ON tasks FOR EACH ROW EXECUTE FUNCTION record_task_status_event()`.execute(db);
}
