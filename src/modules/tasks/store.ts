import { sql, type Insertable, type QueryCreator, type Selectable, type Updateable } from 'kysely';
import { createGroupCommit } from '../../db/batcher.ts';
import { claimLeasedJobs, dueJobs } from '../../db/leased-jobs.ts';
import type { Db, Tx } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { ownTables } from '../../db/tables.ts';
import type { AgentOwnersReadModel } from '../registry/index.ts';
import type { AccountOwnerReadModel } from '../auth/index.ts';
import type { DeliveryPayload } from './schemas.ts';
import type { TaskDeliveriesTable, TasksTable, TasksTables } from './tables.ts';

type TaskRow = Selectable<TasksTable>;
type DeliveryRow = Selectable<TaskDeliveriesTable>;

/** A task as this module's code sees it: JSON columns parsed (once, here), flags as booleans. */
export interface Task {
  id: string;
  requesterId: string;
  title: string | null;
  description: string;
  /** Given by the requester, or extracted from the description for the assigned agent (then `inputExtracted`). */
  input: Record<string, unknown> | null;
  inputExtracted: boolean;
  /** The capability terms asked for. */
  capabilities: string[];
  taskClass: string | null;
  /** The agent the requester named, if any. */
  targetAgentId: string | null;
  assignedAgentId: string | null;
  /** Ranked agent ids (at most 5) tried in order; `candidateIndex` is the one tried now. */
  candidates: string[];
  candidateIndex: number;
  status: TasksTable['status'];
  /** sha256 of the current task token: the callback credential of the assigned agent. */
  tokenHash: string | null;
  result: unknown;
  error: unknown;
  priority: TasksTable['priority'];
  metadata: Record<string, unknown> | null;
  maxPriceCents: number | null;
  /** The currency the requester pays in; `priceCents` is the assigned agent's price when it was assigned. */
  currency: string;
  priceCents: number | null;
  rating: number | null;
  ratingComment: string | null;
  /** The search that led the requester here (write-only: told to discovery when the task is rated well). */
  searchQuery: string | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  deliveredAt: string | null;
  completedAt: string | null;
  /** Handed out by a long poll: when its lease runs out and it goes back to the queue unless renewed. */
  pollLeaseUntil: string | null;
  /** How many times polls have handed it out (more than one: a lease ran out before an answer came). */
  pollHandouts: number;
}

export type TaskStatus = Task['status'];
/** What a write changes, in the task's own terms; the store turns it into columns. */
export type TaskChanges = Partial<Omit<Task, 'id' | 'requesterId' | 'createdAt'>>;

/** An Idempotency-Key's request and the body first answered to it, replayed verbatim. */
export interface IdempotentRequest {
  key: string;
  requestHash: string;
  firstResponse: unknown;
}

/** A delivery job of the outbox as the worker sends it. */
export interface DeliveryJob {
  id: string;
  taskId: string;
  agentId: string;
  attempts: number;
  /** What is sent (it holds the task token); null once delivered, or while an A2A task is followed. */
  payload: DeliveryPayload | null;
  /** `payload` as the exact JSON text stored: what a webhook signs and sends, the same on every retry. */
  body: string | null;
  /** A2A delivery: the agent's task id while its accepted task is followed to its end. */
  remoteTaskId: string | null;
}

/** A job to store: due at `runAt`, already running under this node's lease when `leaseUntil` is set. */
export interface NewDeliveryJob extends DeliveryJob {
  runAt: string;
  leaseUntil: string | null;
}

const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

const taskOf = (row: TaskRow): Task => ({
  id: row.id,
  requesterId: row.requester_id,
  title: row.title,
  description: row.description,
  input: parsed(row.input),
  inputExtracted: row.input_extracted === 1,
  capabilities: JSON.parse(row.capabilities) as string[],
  taskClass: row.task_class,
  targetAgentId: row.target_agent_id,
  assignedAgentId: row.assigned_agent_id,
  candidates: JSON.parse(row.candidates) as string[],
  candidateIndex: row.candidate_index,
  status: row.status,
  tokenHash: row.token_hash,
  result: parsed(row.result),
  error: parsed(row.error),
  priority: row.priority,
  metadata: parsed(row.metadata),
  maxPriceCents: row.max_price_cents,
  currency: row.currency,
  priceCents: row.price_cents,
  rating: row.rating,
  ratingComment: row.rating_comment,
  searchQuery: row.search_query,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  expiresAt: row.expires_at,
  deliveredAt: row.delivered_at,
  completedAt: row.completed_at,
  pollLeaseUntil: row.poll_lease_until,
  pollHandouts: row.poll_handouts,
});

const maybeTask = (row: TaskRow | undefined): Task | undefined => row && taskOf(row);

/** The column of each field that is written as it is. */
const COLUMNS: Record<
  Exclude<keyof TaskChanges, 'input' | 'result' | 'error' | 'metadata' | 'capabilities' | 'candidates' | 'inputExtracted'>,
  keyof TasksTable
> = {
  title: 'title',
  description: 'description',
  taskClass: 'task_class',
  targetAgentId: 'target_agent_id',
  assignedAgentId: 'assigned_agent_id',
  candidateIndex: 'candidate_index',
  status: 'status',
  tokenHash: 'token_hash',
  priority: 'priority',
  maxPriceCents: 'max_price_cents',
  currency: 'currency',
  priceCents: 'price_cents',
  rating: 'rating',
  ratingComment: 'rating_comment',
  searchQuery: 'search_query',
  updatedAt: 'updated_at',
  expiresAt: 'expires_at',
  deliveredAt: 'delivered_at',
  completedAt: 'completed_at',
  pollLeaseUntil: 'poll_lease_until',
  pollHandouts: 'poll_handouts',
};

/** The columns a change sets: only the fields it has. */
function columnsOf(changes: TaskChanges): Updateable<TasksTable> {
  const columns: Updateable<TasksTable> = {};
  for (const [field, value] of Object.entries(changes) as [keyof TaskChanges, unknown][]) {
    if (value === undefined) continue;
    switch (field) {
      case 'input':
      case 'result':
      case 'error':
      case 'metadata':
        columns[field] = json(value);
        break;
      case 'capabilities':
      case 'candidates':
        columns[field] = JSON.stringify(value);
        break;
      case 'inputExtracted':
        columns.input_extracted = value ? 1 : 0;
        break;
      default:
        (columns as Record<string, unknown>)[COLUMNS[field]] = value;
    }
  }
  return columns;
}

const rowOf = (task: Task, idempotency: IdempotentRequest | null): Insertable<TasksTable> => ({
  id: task.id,
  requester_id: task.requesterId,
  title: task.title,
  description: task.description,
  input: json(task.input),
  input_extracted: task.inputExtracted ? 1 : 0,
  capabilities: JSON.stringify(task.capabilities),
  task_class: task.taskClass,
  target_agent_id: task.targetAgentId,
  assigned_agent_id: task.assignedAgentId,
  candidates: JSON.stringify(task.candidates),
  candidate_index: task.candidateIndex,
  status: task.status,
  token_hash: task.tokenHash,
  result: json(task.result),
  error: json(task.error),
  priority: task.priority,
  metadata: json(task.metadata),
  max_price_cents: task.maxPriceCents,
  currency: task.currency,
  price_cents: task.priceCents,
  rating: task.rating,
  rating_comment: task.ratingComment,
  search_query: task.searchQuery,
  idempotency_key: idempotency?.key ?? null,
  request_hash: idempotency?.requestHash ?? null,
  first_response: idempotency ? JSON.stringify(idempotency.firstResponse) : null,
  created_at: task.createdAt,
  updated_at: task.updatedAt,
  expires_at: task.expiresAt,
  delivered_at: task.deliveredAt,
  completed_at: task.completedAt,
  poll_lease_until: task.pollLeaseUntil,
  poll_handouts: task.pollHandouts,
});

const jobOf = (row: DeliveryRow): DeliveryJob => ({
  id: row.id,
  taskId: row.task_id,
  agentId: row.agent_id,
  attempts: row.attempts,
  payload: parsed(row.payload),
  body: row.payload,
  remoteTaskId: row.remote_task_id,
});

const deliveryRowOf = (job: NewDeliveryJob): Insertable<TaskDeliveriesTable> => ({
  id: job.id,
  task_id: job.taskId,
  agent_id: job.agentId,
  attempts: job.attempts,
  state: job.leaseUntil ? 'running' : 'pending',
  run_at: job.runAt,
  lease_until: job.leaseUntil,
  payload: job.body,
  last_error: null,
  remote_task_id: job.remoteTaskId,
  created_at: job.runAt,
  updated_at: job.runAt,
});

export const OPEN_STATUSES = ['pending', 'matched', 'in_progress'] as const;

/**
 * `status in ('pending', 'matched', 'in_progress')` with the values written into the SQL: SQLite uses
 * the partial index `tasks_open_expiry` only when a query's condition names its constants, and bound
 * parameters hide them, so the expiry sweep scanned every task ever stored on each wake.
 */
const isOpen = sql<boolean>`status in (${sql.join(OPEN_STATUSES.map((status) => sql.lit(status)))})`;
/**
 * PostgreSQL already shares a WAL flush among concurrent commits, and a group's writes would run one
 * after another on one connection: there each write commits alone, as many at once as the pool has
 * connections (bench/RESULTS.md, "Tasks: end to end"). The writes of a task's life that are one
 * statement there (creation with its job, delivery made, a free task's completion) skip even that
 * transaction: a statement is atomic on its own, and BEGIN and COMMIT are two round trips more.
 */
const POSTGRES_COMMITS = { maxBatch: 1, lanes: 10 };
/** Routing weighs an agent's last this-many completed tasks. */
const STATS_WINDOW = 100;

/** A completed task as payments settles it: who pays whom, how much, in what currency, when. */
export interface CompletedTask {
  id: string;
  requesterId: string;
  assignedAgentId: string | null;
  currency: string;
  /** The assigned agent's price when it was assigned; null or 0 for a free task. */
  priceCents: number | null;
  completedAt: string | null;
}

/** A task the callback or an A2A agent's answer finished: how it ended, and what payments settles if it completed. */
export interface FinishedTask {
  status: TaskStatus;
  task: CompletedTask;
}

/**
 * What completion does besides changing the task (payments implements it): `settle` runs inside the
 * completing transaction, so its writes commit with the completion or not at all; `afterCommit`
 * starts whatever must not hold the transaction open (network calls).
 */
export interface TaskSettlement {
  settle(tx: Tx, task: CompletedTask): Promise<void>;
  afterCommit(task: CompletedTask): void;
}

/** Per-agent history that routing weighs: ratings and how fast completed tasks came back. */
export interface AgentTaskStats {
  ratings: number;
  ratingSum: number;
  completed: number;
  /** Mean seconds from delivery to completion over those tasks. */
  meanSeconds: number | null;
}

/** When the agent's listen session ends, if one runs at `now`. */
const listenSessionOf = (db: QueryCreator<TasksTables>, agentId: string, now: string) =>
  db.selectFrom('webhook_listeners').select('until').where('agent_id', '=', agentId).where('until', '>', now);

/** Marks a job held back for a listen session, so the session's end makes exactly those due again. */
const HELD_FOR_LISTENER = 'held for a listen session';

/** The agent has the task (a webhook delivered, or an A2A agent working on it): a matched task moves to in_progress. */
const markTaskTaken = (db: QueryCreator<TasksTables>, taskId: string, now: string) =>
  db
    .updateTable('tasks')
    .set({ status: 'in_progress', delivered_at: now, updated_at: now })
    .where('id', '=', taskId)
    .where('status', '=', 'matched')
    .returning(['requester_id', 'assigned_agent_id']);

/** Who hears of a task's status change: its requester, and the owner of the agent it is assigned to. */
export interface TaskParties {
  requesterId: string;
  assignedAgentId: string | null;
}
const partiesOf = (row: { requester_id: string; assigned_agent_id: string | null } | undefined): TaskParties | undefined =>
  row ? { requesterId: row.requester_id, assignedAgentId: row.assigned_agent_id } : undefined;

/** How a task ends: completed with a result, or failed with an error. */
export interface TaskOutcome {
  status: 'completed' | 'failed';
  result: unknown;
  error: unknown;
  now: string;
}

export function createTasksStore(database: Db, dialect: DialectName) {
  const db = ownTables<TasksTables>(database);
  const withAgentOwners = ownTables<TasksTables & AgentOwnersReadModel>(database);
  const withAccountOwners = ownTables<TasksTables & AccountOwnerReadModel>(database);
  const openTasksDue = (now: string, limit: number) => db.selectFrom('tasks').select('id').where(isOpen).where('expires_at', '<=', now).limit(limit);
  // The writes of a task's life (creation, delivery made, callback) from concurrent requests and
  // deliveries share commits: under load one fsync covers many tasks instead of one write each.
  // The group's transaction is the whole database's: completion settles the payment in it (TaskSettlement).
  const grouped = createGroupCommit((work) => database.transaction().execute(work), dialect === 'postgres' ? POSTGRES_COMMITS : { lanes: 1 });
  return {
    /** The queries the delivery worker runs on every wake, compiled, for the test that reads their plans. */
    backgroundQueries: (now: string) => ({
      expiry: openTasksDue(now, 200).compile(),
      deliveriesDue: dueJobs(db, 'task_deliveries', now, 16).compile(),
    }),

    /**
     * The task and its delivery job (claimed already when this node's worker has room), committed
     * together: on PostgreSQL one statement (the task inserted in a CTE), on SQLite in a group commit.
     * With a job this node claimed, it answers when the agent's listen session ends (null when none
     * runs): that job is sent at once after the commit, so its delivery needs no statement of its own
     * to ask (on PostgreSQL the answer comes back from the same statement).
     */
    async insert(task: Task, idempotency: IdempotentRequest | null, delivery: NewDeliveryJob | null): Promise<{ listeningUntil: string | null }> {
      const now = task.createdAt;
      if (dialect === 'postgres') {
        const row = rowOf(task, idempotency);
        if (!delivery) {
          await db.insertInto('tasks').values(row).execute();
          return { listeningUntil: null };
        }
        const inserted = await db
          .with('new_task', (q) => q.insertInto('tasks').values(row))
          .insertInto('task_deliveries')
          .values(deliveryRowOf(delivery))
          .returning((eb) =>
            eb
              .selectFrom('webhook_listeners')
              .select('webhook_listeners.until')
              .where('webhook_listeners.agent_id', '=', delivery.agentId)
              .where('webhook_listeners.until', '>', now)
              .as('listening_until'),
          )
          .executeTakeFirstOrThrow();
        return { listeningUntil: inserted.listening_until ?? null };
      }
      return grouped(async (tx) => {
        const own = ownTables<TasksTables>(tx);
        await own.insertInto('tasks').values(rowOf(task, idempotency)).execute();
        if (!delivery) return { listeningUntil: null };
        await own.insertInto('task_deliveries').values(deliveryRowOf(delivery)).execute();
        if (delivery.leaseUntil === null) return { listeningUntil: null };
        return { listeningUntil: (await listenSessionOf(own, delivery.agentId, now).executeTakeFirst())?.until ?? null };
      });
    },

    find: async (id: string): Promise<Task | undefined> => maybeTask(await db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst()),

    /** The person answerable for the task's request: the requesting account, or the owner of the agent whose key it is. */
    requestingPerson: async (taskId: string): Promise<string | undefined> => {
      const row = await withAccountOwners
        .selectFrom('tasks')
        .leftJoin('accounts', 'accounts.id', 'tasks.requester_id')
        .select(['tasks.requester_id', 'accounts.owner_account_id'])
        .where('tasks.id', '=', taskId)
        .executeTakeFirst();
      return row ? (row.owner_account_id ?? row.requester_id) : undefined;
    },

    /** What a repeated Idempotency-Key is checked against and answered with. */
    async findByIdempotencyKey(requesterId: string, key: string): Promise<Omit<IdempotentRequest, 'key'> | undefined> {
      const row = await db
        .selectFrom('tasks')
        .select(['request_hash', 'first_response'])
        .where('requester_id', '=', requesterId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      return row && { requestHash: row.request_hash as string, firstResponse: JSON.parse(row.first_response as string) };
    },

    async listForRequester(requesterId: string, status: string | undefined, limit: number, offset: number) {
      let query = db.selectFrom('tasks').where('requester_id', '=', requesterId);
      if (status) query = query.where('status', '=', status as TaskStatus);
      const [rows, count] = await Promise.all([
        query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
        query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { tasks: rows.map(taskOf), total: Number(count.n) };
    },

    /**
     * A requester's tasks newest first, after the task `before` names (keyset paging): tasks created
     * meanwhile do not shift later pages, as an offset would.
     */
    async listForRequesterBefore(requesterId: string, before: { createdAt: string; id: string } | null, limit: number) {
      const query = db.selectFrom('tasks').where('requester_id', '=', requesterId);
      const page = before
        ? query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]))
        : query;
      const [rows, count] = await Promise.all([
        page.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute(),
        query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { tasks: rows.map(taskOf), total: Number(count.n) };
    },

    /** Open tasks the account requested, and open tasks assigned to agents it owns (account deletion waits for both). */
    async openCounts(accountId: string) {
      const requested = await db
        .selectFrom('tasks')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('requester_id', '=', accountId)
        .where('status', 'in', [...OPEN_STATUSES])
        .executeTakeFirstOrThrow();
      const assigned = await withAgentOwners
        .selectFrom('tasks')
        .innerJoin('agents', 'agents.id', 'tasks.assigned_agent_id')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('agents.owner_id', '=', accountId)
        .where('tasks.status', 'in', [...OPEN_STATUSES])
        .executeTakeFirstOrThrow();
      return { requested: Number(requested.n), assigned: Number(assigned.n) };
    },

    async listForOwner(ownerId: string, agentId: string | null, status: string | undefined, limit: number, offset: number) {
      let query = withAgentOwners.selectFrom('tasks').innerJoin('agents', 'agents.id', 'tasks.assigned_agent_id').where('agents.owner_id', '=', ownerId);
      if (agentId) query = query.where('tasks.assigned_agent_id', '=', agentId);
      if (status) query = query.where('tasks.status', '=', status as TaskStatus);
      const [rows, count] = await Promise.all([
        query.selectAll('tasks').orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').limit(limit).offset(offset).execute(),
        query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { tasks: rows.map(taskOf), total: Number(count.n) };
    },

    /** Changes a task only if it is still in one of `from`: the database settles every race. */
    async transition(id: string, from: readonly TaskStatus[], changes: TaskChanges, assignedTo?: string): Promise<Task | undefined> {
      let query = db
        .updateTable('tasks')
        .set(columnsOf(changes))
        .where('id', '=', id)
        .where('status', 'in', [...from]);
      if (assignedTo) query = query.where('assigned_agent_id', '=', assignedTo);
      return maybeTask(await query.returningAll().executeTakeFirst());
    },

    /**
     * Rates a completed task that has no rating yet. The condition is in the statement, so of any
     * number of concurrent ratings exactly one changes the row; the others get undefined.
     */
    rateOnce: async (id: string, score: number, comment: string | null, now: string): Promise<Task | undefined> =>
      maybeTask(
        await db
          .updateTable('tasks')
          .set({ rating: score, rating_comment: comment, updated_at: now })
          .where('id', '=', id)
          .where('status', '=', 'completed')
          .where('rating', 'is', null)
          .returningAll()
          .executeTakeFirst(),
      ),

    /**
     * The callback's move to completed or failed. The conditional update is what makes a task finish
     * (and be paid) once: of any number of concurrent callbacks one changes the row, and only that
     * one settles, in the same transaction. With `tokenHash` only the holder of the task's current
     * token finishes it (a callback); undefined then also means the token did not match.
     * On PostgreSQL a free task finishes in that one statement, outside any transaction: there are no
     * ledger entries to commit with it. A paid one (or one whose update found nothing) goes on to the
     * transaction.
     */
    async finish(id: string, settlement: TaskSettlement, outcome: TaskOutcome, tokenHash: string | null): Promise<FinishedTask | undefined> {
      const finishing = (q: QueryCreator<TasksTables>) => {
        const update = q
          .updateTable('tasks')
          .set((eb) => ({
            status: outcome.status,
            result: json(outcome.result),
            error: json(outcome.error),
            completed_at: outcome.now,
            updated_at: outcome.now,
            // A webhook agent may answer before the delivery is recorded as made.
            delivered_at: eb.fn.coalesce('delivered_at', eb.val(outcome.now)),
          }))
          .where('id', '=', id)
          .where('status', 'in', ['matched', 'in_progress'])
          // Past its expiry a task takes no answer, even before the expiry pass has marked it.
          .where('expires_at', '>', outcome.now)
          .returning(['id', 'status', 'requester_id', 'assigned_agent_id', 'currency', 'price_cents', 'completed_at']);
        return tokenHash === null ? update : update.where('token_hash', '=', tokenHash);
      };
      const finished = (row: {
        id: string;
        status: TaskStatus;
        requester_id: string;
        assigned_agent_id: string | null;
        currency: string;
        price_cents: number | null;
        completed_at: string | null;
      }): FinishedTask => ({
        status: row.status,
        task: {
          id: row.id,
          requesterId: row.requester_id,
          assignedAgentId: row.assigned_agent_id,
          currency: row.currency,
          priceCents: row.price_cents,
          completedAt: row.completed_at,
        },
      });
      if (dialect === 'postgres') {
        const free = await finishing(db)
          .where((eb) => eb.or([eb('price_cents', 'is', null), eb('price_cents', '<=', 0)]))
          .executeTakeFirst();
        if (free) return finished(free);
      }
      return grouped(async (tx) => {
        const row = await finishing(ownTables<TasksTables>(tx)).executeTakeFirst();
        if (!row) return undefined;
        const done = finished(row);
        if (row.status === 'completed') await settlement.settle(tx, done.task);
        return done;
      });
    },

    /** Moves the task to its next candidate (or a final state) and replaces its delivery job, atomically. */
    async reassign(
      id: string,
      expectedIndex: number,
      changes: TaskChanges,
      delivery: NewDeliveryJob | null,
      finishedJob: { id: string; error: string; now: string },
    ): Promise<TaskParties | undefined> {
      return db.transaction().execute(async (tx) => {
        await tx
          .updateTable('task_deliveries')
          .set({ state: 'failed', payload: null, last_error: finishedJob.error, lease_until: null, updated_at: finishedJob.now })
          .where('id', '=', finishedJob.id)
          .execute();
        const moved = await tx
          .updateTable('tasks')
          .set(columnsOf(changes))
          .where('id', '=', id)
          .where('status', '=', 'matched')
          .where('candidate_index', '=', expectedIndex)
          .returning(['requester_id', 'assigned_agent_id'])
          .executeTakeFirst();
        if (moved && delivery) await tx.insertInto('task_deliveries').values(deliveryRowOf(delivery)).execute();
        return partiesOf(moved);
      });
    },

    /** Tasks waiting for a polling agent and not yet past their expiry, most urgent and oldest first. */
    waitingFor: async (agentId: string, now: string, limit: number): Promise<Task[]> =>
      (
        await db
          .selectFrom('tasks')
          .selectAll()
          .where('assigned_agent_id', '=', agentId)
          .where('status', '=', 'matched')
          .where('expires_at', '>', now)
          .orderBy(sql`case priority when 'urgent' then 0 when 'high' then 1 when 'normal' then 2 else 3 end`)
          .orderBy('created_at')
          .orderBy('id')
          .limit(limit)
          .execute()
      ).map(taskOf),

    /**
     * History over each agent's most recent completed tasks only: one bounded index range per agent
     * (tasks_completed), so routing costs the same however many tasks an agent has done.
     */
    async statsFor(agentIds: string[]): Promise<Map<string, AgentTaskStats>> {
      const stats = new Map<string, AgentTaskStats>();
      await Promise.all(
        agentIds.map(async (agentId) => {
          const rows = await db
            .selectFrom('tasks')
            .select(['rating', 'delivered_at', 'completed_at'])
            .where('assigned_agent_id', '=', agentId)
            .where('status', '=', 'completed')
            .orderBy('completed_at', 'desc')
            .limit(STATS_WINDOW)
            .execute();
          if (rows.length === 0) return;
          const rated = rows.filter((row) => row.rating !== null);
          const seconds = rows
            .filter((row) => row.delivered_at && row.completed_at)
            .map((row) => (Date.parse(row.completed_at as string) - Date.parse(row.delivered_at as string)) / 1000);
          stats.set(agentId, {
            ratings: rated.length,
            ratingSum: rated.reduce((sum, row) => sum + (row.rating as number), 0),
            completed: rows.length,
            meanSeconds: seconds.length > 0 ? seconds.reduce((a, b) => a + b, 0) / seconds.length : null,
          });
        }),
      );
      return stats;
    },

    /**
     * Tasks a poll handed out whose lease ran out without an answer or a renewal go back to the
     * queue: matched again for the same agent, same id, and the same token (it is derived from the
     * task, so the holder whose lease lapsed may still answer; the first answer finishes the task).
     * Tasks past their expiry are left to the expiry pass. Returns the parties of those requeued.
     */
    async requeueLapsed(now: string, limit = 200): Promise<TaskParties[]> {
      const lapsed = (q: QueryCreator<TasksTables>) =>
        q
          .selectFrom('tasks')
          .select('id')
          // The literal lets SQLite use the partial index tasks_poll_lease (see isOpen).
          .where(sql<boolean>`status = ${sql.lit('in_progress')}`)
          .where('poll_lease_until', 'is not', null)
          .where('poll_lease_until', '<=', now)
          .where('expires_at', '>', now);
      const rows = await db
        .updateTable('tasks')
        .set({ status: 'matched', poll_lease_until: null, delivered_at: null, updated_at: now })
        .where('id', 'in', lapsed(db).limit(limit))
        .where('status', '=', 'in_progress')
        .where('poll_lease_until', '<=', now)
        .returning(['requester_id', 'assigned_agent_id'])
        .execute();
      return rows.map((row) => partiesOf(row)!);
    },

    /**
     * The holder of the task's token extends its poll lease to `until`: only while the task is in
     * progress under a lease and not past its expiry. Undefined when nothing changed.
     */
    renewLease: async (id: string, tokenHash: string, until: string, now: string): Promise<Task | undefined> =>
      maybeTask(
        await db
          .updateTable('tasks')
          .set({ poll_lease_until: until })
          .where('id', '=', id)
          .where('token_hash', '=', tokenHash)
          .where('status', '=', 'in_progress')
          .where('poll_lease_until', 'is not', null)
          .where('expires_at', '>', now)
          .returningAll()
          .executeTakeFirst(),
      ),

    /**
     * The holder of the task's token renews a lease that ran out while the task waits in the queue,
     * taken by no poll since: it is the holder's again, in progress under a lease to `until`. Its
     * renewal was late (lost with a node, or the agent paused), not its work. Undefined when nothing changed.
     */
    retakeLapsed: async (id: string, tokenHash: string, until: string, now: string): Promise<Task | undefined> =>
      maybeTask(
        await db
          .updateTable('tasks')
          .set({ status: 'in_progress', poll_lease_until: until, delivered_at: now, updated_at: now })
          .where('id', '=', id)
          .where('token_hash', '=', tokenHash)
          .where('status', '=', 'matched')
          // Handed out by a poll before: a task waiting for its first poll has no token yet, a webhook task's token was never leased.
          .where('poll_handouts', '>', 0)
          .where('expires_at', '>', now)
          .returningAll()
          .executeTakeFirst(),
      ),

    /** Open tasks past their expiry become `expired`; their pending deliveries stop. */
    async expireDue(now: string, limit = 200): Promise<Task[]> {
      const due = await openTasksDue(now, limit).execute();
      if (due.length === 0) return [];
      const ids = due.map((row) => row.id);
      return db.transaction().execute(async (tx) => {
        const expired = await tx
          .updateTable('tasks')
          .set({
            status: 'expired',
            token_hash: null,
            updated_at: now,
            error: JSON.stringify({ code: 'expired', message: 'No result arrived before the task expired' }),
          })
          .where('id', 'in', ids)
          .where('status', 'in', [...OPEN_STATUSES])
          .returningAll()
          .execute();
        await tx
          .updateTable('task_deliveries')
          .set({ state: 'failed', payload: null, last_error: 'task expired', updated_at: now })
          .where('task_id', 'in', ids)
          .where('state', 'in', ['pending', 'running'])
          .execute();
        return expired.map(taskOf);
      });
    },

    // -- delivery jobs ---------------------------------------------------------------------------

    /** Due jobs of the outbox, leased to this worker (see claimLeasedJobs). */
    claimDue: async (now: string, leaseUntil: string, limit: number): Promise<DeliveryJob[]> =>
      (await claimLeasedJobs<DeliveryRow, TasksTables>(db, dialect, 'task_deliveries', now, leaseUntil, limit)).map(jobOf),

    /** After a crash of the only node (SQLite), its running jobs are orphans: hand them back at once. */
    releaseRunning: (now: string) =>
      db.updateTable('task_deliveries').set({ state: 'pending', lease_until: null, run_at: now, updated_at: now }).where('state', '=', 'running').execute(),

    /**
     * Jobs a stopping node still held, handed back due now. Only while still running under this node's
     * claim (each claim counts an attempt): a job whose lease already ran out may be another node's by now.
     */
    async releaseHeld(jobs: readonly DeliveryJob[], now: string): Promise<void> {
      for (const job of jobs)
        await db
          .updateTable('task_deliveries')
          .set({ state: 'pending', lease_until: null, run_at: now, updated_at: now })
          .where('id', '=', job.id)
          .where('state', '=', 'running')
          .where('attempts', '=', job.attempts)
          .execute();
    },

    /**
     * The webhook was accepted: the job is done and the task in progress, together (on PostgreSQL in
     * one statement). Returns the task's parties when the task moved.
     */
    async delivered(job: DeliveryJob, now: string): Promise<TaskParties | undefined> {
      const jobDone = (q: QueryCreator<TasksTables>) =>
        q.updateTable('task_deliveries').set({ state: 'done', payload: null, lease_until: null, last_error: null, updated_at: now }).where('id', '=', job.id);
      if (dialect === 'postgres') {
        // The CTE's name is never read, so the task update is typed against the module's tables alone.
        return partiesOf(await markTaskTaken(db.with('job_done', jobDone) as unknown as QueryCreator<TasksTables>, job.taskId, now).executeTakeFirst());
      }
      return grouped(async (tx) => {
        const own = ownTables<TasksTables>(tx);
        await jobDone(own).execute();
        return partiesOf(await markTaskTaken(own, job.taskId, now).executeTakeFirst());
      });
    },

    /**
     * An A2A agent took the task and works on it: the task is in progress, and the job comes back at
     * `runAt` to ask the agent how it goes (its polls counted afresh from here).
     */
    async following(job: DeliveryJob, remoteTaskId: string, runAt: string, now: string): Promise<TaskParties | undefined> {
      return db.transaction().execute(async (tx) => {
        await tx
          .updateTable('task_deliveries')
          .set({
            state: 'pending',
            run_at: runAt,
            lease_until: null,
            payload: null,
            last_error: null,
            remote_task_id: remoteTaskId,
            attempts: job.remoteTaskId ? job.attempts : 0,
            updated_at: now,
          })
          .where('id', '=', job.id)
          .execute();
        return partiesOf(await markTaskTaken(tx, job.taskId, now).executeTakeFirst());
      });
    },

    /** The agent-side id of the A2A task a delivery of this task followed, to cancel it there. */
    remoteTaskOf: async (taskId: string): Promise<{ agentId: string; remoteTaskId: string } | undefined> => {
      const row = await db
        .selectFrom('task_deliveries')
        .select(['agent_id', 'remote_task_id'])
        .where('task_id', '=', taskId)
        .where('remote_task_id', 'is not', null)
        .orderBy('updated_at', 'desc')
        .executeTakeFirst();
      return row?.remote_task_id ? { agentId: row.agent_id, remoteTaskId: row.remote_task_id } : undefined;
    },

    retryLater: (job: DeliveryJob, runAt: string, error: string, now: string) =>
      db
        .updateTable('task_deliveries')
        .set({ state: 'pending', run_at: runAt, lease_until: null, last_error: error, updated_at: now })
        .where('id', '=', job.id)
        .execute(),

    /** A job whose task no longer waits for it (cancelled, expired, completed or reassigned). */
    retire: (jobId: string, now: string) =>
      db.updateTable('task_deliveries').set({ state: 'done', payload: null, lease_until: null, updated_at: now }).where('id', '=', jobId).execute(),

    cancelDeliveries: (taskId: string, now: string) =>
      db
        .updateTable('task_deliveries')
        .set({ state: 'failed', payload: null, last_error: 'task cancelled', updated_at: now })
        .where('task_id', '=', taskId)
        .where('state', '=', 'pending')
        .execute(),

    // -- listen sessions (docs/cli.md, "agentry listen") ------------------------------------------

    /** The agent's listen session runs until `until`: each of its polls renews it. */
    listenUntil: (agentId: string, until: string) =>
      db
        .insertInto('webhook_listeners')
        .values({ agent_id: agentId, until })
        .onConflict((oc) => oc.column('agent_id').doUpdateSet({ until }))
        .execute(),

    /** When the agent's listen session ends, or null when none runs at `now`. */
    listeningUntil: async (agentId: string, now: string): Promise<string | null> => (await listenSessionOf(db, agentId, now).executeTakeFirst())?.until ?? null,

    /**
     * A job claimed for an agent whose listen session runs is held back for the session: pending
     * until the session ends (when the endpoint gets it again), the claim not counted as an attempt.
     */
    holdForListener: (job: DeliveryJob, until: string, now: string) =>
      db
        .updateTable('task_deliveries')
        .set({ state: 'pending', run_at: until, lease_until: null, attempts: Math.max(0, job.attempts - 1), last_error: HELD_FOR_LISTENER, updated_at: now })
        .where('id', '=', job.id)
        .where('state', '=', 'running')
        .where('attempts', '=', job.attempts)
        .execute(),

    /** The session ended: it no longer diverts, and the jobs held back for it are due now. */
    async stopListening(agentId: string, now: string): Promise<void> {
      await db.deleteFrom('webhook_listeners').where('agent_id', '=', agentId).execute();
      await db
        .updateTable('task_deliveries')
        .set({ run_at: now, last_error: null, updated_at: now })
        .where('agent_id', '=', agentId)
        .where('state', '=', 'pending')
        .where('last_error', '=', HELD_FOR_LISTENER)
        .execute();
    },

    /**
     * Takes up to `limit` of the agent's webhook jobs no worker holds (pending, whenever due) for its
     * listen session: each job done and its task in progress, as a delivered webhook leaves them.
     */
    async takeForListener(agentId: string, now: string, limit: number): Promise<Array<DeliveryJob & { moved: TaskParties | undefined }>> {
      const waiting = await db
        .selectFrom('task_deliveries')
        .innerJoin('tasks', 'tasks.id', 'task_deliveries.task_id')
        .selectAll('task_deliveries')
        .where('task_deliveries.agent_id', '=', agentId)
        .where('task_deliveries.state', '=', 'pending')
        .where('task_deliveries.payload', 'is not', null)
        .where('task_deliveries.remote_task_id', 'is', null)
        .where('tasks.status', '=', 'matched')
        .where('tasks.assigned_agent_id', '=', agentId)
        .where('tasks.expires_at', '>', now)
        .orderBy('task_deliveries.run_at')
        .limit(limit)
        .execute();
      const taken: Array<DeliveryJob & { moved: TaskParties | undefined }> = [];
      for (const row of waiting) {
        const job = jobOf(row);
        const took = await db.transaction().execute(async (tx) => {
          const done = await tx
            .updateTable('task_deliveries')
            .set({ state: 'done', payload: null, lease_until: null, last_error: null, updated_at: now })
            .where('id', '=', job.id)
            .where('state', '=', 'pending')
            .executeTakeFirst();
          if (Number(done.numUpdatedRows) === 0) return false;
          return { moved: partiesOf(await markTaskTaken(tx, job.taskId, now).executeTakeFirst()) };
        });
        // A worker or another poll of the session took it first.
        if (took) taken.push({ ...job, moved: took.moved });
      }
      return taken;
    },

    /** Jobs in the outbox not yet done, by state (the metrics' queue depth). */
    async queueDepth(): Promise<{ pending: number; running: number }> {
      const rows = await db
        .selectFrom('task_deliveries')
        .select((eb) => ['state', eb.fn.countAll<number | string>().as('count')])
        .where('state', 'in', ['pending', 'running'])
        .groupBy('state')
        .execute();
      const count = (state: string) => Number(rows.find((row) => row.state === state)?.count ?? 0);
      return { pending: count('pending'), running: count('running') };
    },
  };
}

export type TasksStore = ReturnType<typeof createTasksStore>;

/**
 * The store, telling `changed` after the commit of every status change made through it, with the
 * parties of each task that changed (the metrics count them by the status entered; the events
 * streams are woken for them). A change another node makes is told on that node.
 */
export function watchingStatusChanges(store: TasksStore, changed: (status: TaskStatus, parties: TaskParties[]) => void): TasksStore {
  const partiesOfTask = (task: Pick<Task, 'requesterId' | 'assignedAgentId'>): TaskParties => ({
    requesterId: task.requesterId,
    assignedAgentId: task.assignedAgentId,
  });
  return {
    ...store,
    async insert(task, idempotency, delivery) {
      const inserted = await store.insert(task, idempotency, delivery);
      changed(task.status, [partiesOfTask(task)]);
      return inserted;
    },
    async transition(id, from, changes, assignedTo) {
      const moved = await store.transition(id, from, changes, assignedTo);
      if (moved && changes.status) changed(changes.status, [partiesOfTask(moved)]);
      return moved;
    },
    async finish(id, settlement, outcome, tokenHash) {
      const finished = await store.finish(id, settlement, outcome, tokenHash);
      if (finished) changed(finished.status, [partiesOfTask(finished.task)]);
      return finished;
    },
    async reassign(id, expectedIndex, changes, delivery, finishedJob) {
      const moved = await store.reassign(id, expectedIndex, changes, delivery, finishedJob);
      if (moved && changes.status) changed(changes.status, [moved]);
      return moved;
    },
    async requeueLapsed(now, limit) {
      const requeued = await store.requeueLapsed(now, limit);
      if (requeued.length > 0) changed('matched', requeued);
      return requeued;
    },
    async retakeLapsed(id, tokenHash, until, now) {
      const retaken = await store.retakeLapsed(id, tokenHash, until, now);
      if (retaken) changed('in_progress', [partiesOfTask(retaken)]);
      return retaken;
    },
    async expireDue(now, limit) {
      const expired = await store.expireDue(now, limit);
      if (expired.length > 0) changed('expired', expired.map(partiesOfTask));
      return expired;
    },
    async delivered(job, now) {
      const moved = await store.delivered(job, now);
      if (moved) changed('in_progress', [moved]);
      return moved;
    },
    async following(job, remoteTaskId, runAt, now) {
      const moved = await store.following(job, remoteTaskId, runAt, now);
      if (moved) changed('in_progress', [moved]);
      return moved;
    },
    async takeForListener(agentId, now, limit) {
      const taken = await store.takeForListener(agentId, now, limit);
      const moved = taken.flatMap((job) => (job.moved ? [job.moved] : []));
      if (moved.length > 0) changed('in_progress', moved);
      return taken;
    },
  };
}
