import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * The log of task status changes that the triggers on `tasks` write (migration 0018) becomes the tasks
 * module's own: `account_events` is now `task_status_events`, `account_events_horizon` is now
 * `task_status_events_horizon`, and the triggers (and the PostgreSQL trigger function) take the tasks
 * module's names, so the triggers on the tasks module's table write only its tables. The events
 * module streams the log and prunes it through the tasks module (src/modules/tasks/index.ts).
 *
 * Renamed, not copied: every row, the ids and the id sequence (SQLite's AUTOINCREMENT counter,
 * PostgreSQL's sequence) go on as they were, so a Last-Event-ID given before this migration resumes
 * after it. The triggers do what 0018's did: one row for the requester and one for the assigned
 * agent's owner when that is another account, then the `events` signal with the account id
 * (`agentry_signal`, NOTIFY on PostgreSQL, unchanged).
 *
 * The trigger still reads `agents.owner_id` itself, in SQL: a read of the registry module's table
 * (registry's read model: who owns the assigned agent), kept in the trigger so the event is written
 * in the status change's own transaction by every writer of a status.
 */
export const taskStatusEvents: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    if (dialect === 'sqlite') await upSqlite(db);
    else await upPostgres(db);
  },
};

const run = async (db: Kysely<unknown>, statements: string[]) => {
  for (const statement of statements) await sql.raw(statement).execute(db);
};

/** The task's status for one recipient, as the stream sends it. */
const sqliteEventData = (role: string) => `json_object('taskId', new.id, 'status', new.status, 'at', new.updated_at, 'role', '${role}')`;

async function upSqlite(db: Kysely<unknown>) {
  const otherOwner = `FROM agents WHERE id = new.assigned_agent_id AND owner_id IS NOT NULL AND owner_id <> new.requester_id`;
  const body = `
    INSERT INTO task_status_events (account_id, type, data, created_at) VALUES (new.requester_id, 'task.status', ${sqliteEventData('requester')}, new.updated_at);
    INSERT INTO task_status_events (account_id, type, data, created_at) SELECT owner_id, 'task.status', ${sqliteEventData('agent')}, new.updated_at ${otherOwner};
    SELECT agentry_signal('events', new.requester_id);
    SELECT agentry_signal('events', owner_id) ${otherOwner};`;
  // SQLite renames a table's AUTOINCREMENT counter with it; its indexes cannot be renamed, only made again.
  await run(db, [
    'DROP TRIGGER tasks_status_events_ai',
    'DROP TRIGGER tasks_status_events_au',
    'DROP INDEX account_events_account',
    'DROP INDEX account_events_created',
    'ALTER TABLE account_events RENAME TO task_status_events',
    'ALTER TABLE account_events_horizon RENAME TO task_status_events_horizon',
    'CREATE INDEX task_status_events_account ON task_status_events (account_id, id)',
    'CREATE INDEX task_status_events_created ON task_status_events (created_at)',
    `CREATE TRIGGER tasks_record_status_event_ai AFTER INSERT ON tasks BEGIN ${body} END`,
    `CREATE TRIGGER tasks_record_status_event_au AFTER UPDATE OF status ON tasks WHEN old.status IS NOT new.status BEGIN ${body} END`,
  ]);
}

async function upPostgres(db: Kysely<unknown>) {
  const data = (role: string) => `json_build_object('taskId', NEW.id, 'status', NEW.status, 'at', NEW.updated_at, 'role', '${role}')::text`;
  await run(db, [
    'DROP TRIGGER tasks_status_events ON tasks',
    'DROP FUNCTION record_task_status_event()',
    'ALTER TABLE account_events RENAME TO task_status_events',
    // The column's default names the sequence by its oid, so it follows the rename.
    'ALTER SEQUENCE account_events_id_seq RENAME TO task_status_events_id_seq',
    'ALTER INDEX account_events_pkey RENAME TO task_status_events_pkey',
    'ALTER INDEX account_events_account RENAME TO task_status_events_account',
    'ALTER INDEX account_events_created RENAME TO task_status_events_created',
    'ALTER TABLE account_events_horizon RENAME TO task_status_events_horizon',
    `CREATE FUNCTION tasks_record_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       agent_owner TEXT;
     BEGIN
       IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
         RETURN NULL;
       END IF;
       INSERT INTO task_status_events (account_id, type, data, created_at) VALUES (NEW.requester_id, 'task.status', ${data('requester')}, NEW.updated_at);
       PERFORM agentry_signal('events', NEW.requester_id);
       SELECT owner_id INTO agent_owner FROM agents WHERE id = NEW.assigned_agent_id;
       IF agent_owner IS NOT NULL AND agent_owner <> NEW.requester_id THEN
         INSERT INTO task_status_events (account_id, type, data, created_at) VALUES (agent_owner, 'task.status', ${data('agent')}, NEW.updated_at);
         PERFORM agentry_signal('events', agent_owner);
       END IF;
       RETURN NULL;
     END $$`,
    'CREATE TRIGGER tasks_record_status_event AFTER INSERT OR UPDATE OF status ON tasks FOR EACH ROW EXECUTE FUNCTION tasks_record_status_event()',
  ]);
}
