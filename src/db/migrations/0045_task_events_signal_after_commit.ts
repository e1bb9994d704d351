import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * The triggers on `tasks` keep writing each status change to `task_status_events` in the change's own
 * transaction, but no longer raise the `events` signal: on PostgreSQL a transaction that has sent a
 * NOTIFY takes a database-wide lock at commit and holds it through the WAL flush, so task writes that
 * notified could not share commits. The tasks module now raises the signal itself after the commit,
 * for several changes at once (src/modules/tasks/status-signals.ts). The events written are the same
 * as migration 0021's.
 */
export const taskEventsSignalAfterCommit: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    if (dialect === 'sqlite') await upSqlite(db);
    else await upPostgres(db);
  },
};

const run = async (db: Kysely<unknown>, statements: string[]) => {
  for (const statement of statements) await sql.raw(statement).execute(db);
};

const sqliteEventData = (role: string) => `json_object('taskId', new.id, 'status', new.status, 'at', new.updated_at, 'role', '${role}')`;

async function upSqlite(db: Kysely<unknown>) {
  const otherOwner = `FROM agents WHERE id = new.assigned_agent_id AND owner_id IS NOT NULL AND owner_id <> new.requester_id`;
  const body = `
    INSERT INTO task_status_events (account_id, type, data, created_at) VALUES (new.requester_id, 'task.status', ${sqliteEventData('requester')}, new.updated_at);
    INSERT INTO task_status_events (account_id, type, data, created_at) SELECT owner_id, 'task.status', ${sqliteEventData('agent')}, new.updated_at ${otherOwner};`;
  await run(db, [
    'DROP TRIGGER tasks_record_status_event_ai',
    'DROP TRIGGER tasks_record_status_event_au',
    `CREATE TRIGGER tasks_record_status_event_ai AFTER INSERT ON tasks BEGIN ${body} END`,
    `CREATE TRIGGER tasks_record_status_event_au AFTER UPDATE OF status ON tasks WHEN old.status IS NOT new.status BEGIN ${body} END`,
  ]);
}

async function upPostgres(db: Kysely<unknown>) {
  const data = (role: string) => `json_build_object('taskId', NEW.id, 'status', NEW.status, 'at', NEW.updated_at, 'role', '${role}')::text`;
  // The trigger stays; only its function changes.
  await run(db, [
    `CREATE OR REPLACE FUNCTION tasks_record_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       agent_owner TEXT;
     BEGIN
       IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
         RETURN NULL;
       END IF;
       INSERT INTO task_status_events (account_id, type, data, created_at) VALUES (NEW.requester_id, 'task.status', ${data('requester')}, NEW.updated_at);
       SELECT owner_id INTO agent_owner FROM agents WHERE id = NEW.assigned_agent_id;
       IF agent_owner IS NOT NULL AND agent_owner <> NEW.requester_id THEN
         INSERT INTO task_status_events (account_id, type, data, created_at) VALUES (agent_owner, 'task.status', ${data('agent')}, NEW.updated_at);
       END IF;
       RETURN NULL;
     END $$`,
  ]);
}
