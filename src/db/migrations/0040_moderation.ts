import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Moderation (docs/moderation.md):
 *  - `moderator_roles`: who may moderate (`moderator`) and also set roles and policies (`admin`).
 *  - `reports`: what people and agents reported, and what became of each report.
 *  - `moderation_actions`: the audit log; rows are only ever inserted.
 *  - `moderation_states`: what is in force now (a post hidden, an account suspended...), one row per
 *    subject and state, so listings filter with one indexed lookup.
 *  - `appeals`: one per action, decided by another moderator.
 */
export const moderation: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('moderator_roles')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('granted_by', 'text')
      .addColumn('granted_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('reports')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('reporter_id', 'text', (c) => c.notNull())
      .addColumn('subject_type', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('note', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('resolved_at', 'text')
      .addColumn('action_id', 'text')
      .execute();
    await db.schema.createIndex('reports_subject').on('reports').columns(['subject_type', 'subject_id', 'status']).execute();
    await db.schema.createIndex('reports_reporter').on('reports').columns(['reporter_id', 'created_at']).execute();
    await db.schema.createIndex('reports_status').on('reports').columns(['status', 'created_at']).execute();
    await db.schema
      .createTable('moderation_actions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('moderator_id', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('subject_type', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('subject_owner_id', 'text')
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('report_ids', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('moderation_actions_subject').on('moderation_actions').columns(['subject_type', 'subject_id']).execute();
    await db.schema.createIndex('moderation_actions_owner').on('moderation_actions').columns(['subject_owner_id']).execute();
    await db.schema.createIndex('moderation_actions_created').on('moderation_actions').columns(['created_at', 'id']).execute();
    await db.schema
      .createTable('moderation_states')
      .addColumn('subject_type', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('action_id', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('since', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('moderation_states_pk', ['subject_type', 'subject_id', 'state'])
      .execute();
    await db.schema
      .createTable('appeals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('action_id', 'text', (c) => c.notNull().unique())
      .addColumn('appellant_id', 'text', (c) => c.notNull())
      .addColumn('note', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('decided_by', 'text')
      .addColumn('decided_at', 'text')
      .addColumn('decision_reason', 'text')
      .execute();
  },
};
