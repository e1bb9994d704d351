import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

export const tasks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('requester_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('title', 'text')
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('input', 'text')
      .addColumn('input_extracted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('capabilities', 'text', (c) => c.notNull())
      .addColumn('task_class', 'text')
      .addColumn('target_agent_id', 'text')
      .addColumn('assigned_agent_id', 'text', (c) => c.references('agents.id').onDelete('set null'))
      .addColumn('candidates', 'text', (c) => c.notNull())
      .addColumn('candidate_index', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text')
      .addColumn('result', 'text')
      .addColumn('error', 'text')
      .addColumn('priority', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text')
      .addColumn('max_price_cents', 'integer')
      .addColumn('rating', 'integer')
      .addColumn('rating_comment', 'text')
      .addColumn('idempotency_key', 'text')
      .addColumn('request_hash', 'text')
      .addColumn('first_response', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('delivered_at', 'text')
      .addColumn('completed_at', 'text')
      .execute();
    await db.schema.createIndex('tasks_requester').on('tasks').columns(['requester_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('tasks_assigned').on('tasks').columns(['assigned_agent_id', 'status', 'created_at']).execute();
    await db.schema.createIndex('tasks_completed').on('tasks').columns(['assigned_agent_id', 'status', 'completed_at']).execute();
    await db.schema
      .createIndex('tasks_idempotency')
      .on('tasks')
      .columns(['requester_id', 'idempotency_key'])
      .unique()
      .where(sql.ref('idempotency_key'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('tasks_open_expiry')
      .on('tasks')
      .columns(['expires_at'])
      .where(sql.ref('status'), 'in', sql`('pending', 'matched', 'in_progress')`)
      .execute();

    // The outbox of webhook deliveries: written in the same transaction as the task, worked by any node.
    await db.schema
      .createTable('task_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('run_at', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'text')
      .addColumn('payload', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('task_deliveries_due').on('task_deliveries').columns(['state', 'run_at']).execute();
    await db.schema.createIndex('task_deliveries_task').on('task_deliveries').column('task_id').execute();
  },
};
