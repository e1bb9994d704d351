import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Notifications reach the account's event stream (GET /v1/events): a trigger on `notifications`
 * raises the `events` signal with the recipient's account id, as the task status triggers do (0018),
 * so streams on every node look again whichever writer made the notification.
 *
 * Mutes and blocks, one row per (person, muted or blocked person): a mute hides the other's posts and
 * notifications from the one who muted; a block also keeps the other from following, mentioning or
 * replying to the one who blocked.
 */
export const liveSocial: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    for (const table of ['mutes', 'blocks']) {
      await db.schema
        .createTable(table)
        .addColumn('profile_id', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint(`${table}_pk`, ['profile_id', 'target_id'])
        .execute();
      // "Who blocked me" is asked when someone follows, mentions or replies.
      await db.schema.createIndex(`${table}_target`).on(table).columns(['target_id', 'profile_id']).execute();
    }
    const statements =
      dialect === 'postgres'
        ? [
            `CREATE FUNCTION notification_signal() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               PERFORM agentry_signal('events', account_id) FROM profiles WHERE id = NEW.recipient_id;
               RETURN NULL;
             END $$`,
            'CREATE TRIGGER notifications_signal AFTER INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION notification_signal()',
          ]
        : [
            `CREATE TRIGGER notifications_signal AFTER INSERT ON notifications BEGIN
               SELECT agentry_signal('events', account_id) FROM profiles WHERE id = new.recipient_id;
             END`,
          ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
