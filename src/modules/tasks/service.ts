import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Signals } from '../../db/signals.ts';
import { readerOf, type Principal } from '../../lib/principal.ts';
import { isoIn, isoNow, type Clock } from '../../lib/clock.ts';
import { AppError, agentNotListed, badRequest, conflict, forbidden, notFound, unauthorized } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import canonicalize from 'canonicalize';
import { DEFAULT_CURRENCY } from '../../lib/money.ts';
import { hashSecret } from '../../lib/secrets.ts';
import type { TrustLookup } from '../receipts/index.ts';
import { checkInputAgainstSchema, identityLevelOf, validateInputSchema, type AgentRecord, type RegistryService } from '../registry/index.ts';
import { deliveryPayload, type Assigner } from './assignment.ts';
import type { DeliveryHandOff, DeliverySlot } from './delivery-worker.ts';
import { MAX_CANDIDATES, rankCandidates, requestedTermSets, ROUTING_WEIGHTS, unmatchedError, type Candidate, type Exclusion } from './routing.ts';
import type { CreateTaskInput, DeliveryPayload, ExtractRequestInput, ListenedDelivery, TaskView } from './schemas.ts';
import { webhookDeliveryHeaders } from './webhook-signature.ts';
import { withRecentStats } from './recent-stats.ts';
import { taskClassOf } from '../catalog/index.ts';
import { OPEN_STATUSES, type Task, type TaskSettlement, type TasksStore } from './store.ts';

/** Signal channels: a task waits for a polling agent (payload: agent id); a webhook job is due. */
export const AGENT_TASKS_CHANNEL = 'tasks.agent';
export const DELIVERY_CHANNEL = 'tasks.delivery';

const DEFAULT_EXPIRY_MINUTES = 60;
/** A waiting poll looks again this often even unwoken: a backstop should a wake-up signal be lost. */
const POLL_RECHECK_MS = 5000;
/** A listen session still diverts this long after its poll's wait ends: the gap before its next poll. */
const LISTEN_GRACE_MS = 30_000;

type RegistryForTasks = Pick<
  RegistryService,
  'findAgent' | 'findAgents' | 'visibleAgent' | 'visibleWithAnyCapability' | 'availabilityOf' | 'healthOf' | 'authorizePoll' | 'markSeen'
>;

export interface TasksDeps {
  store: TasksStore;
  clock: Clock;
  registry: RegistryForTasks;
  trust: TrustLookup;
  assigner: Assigner;
  signals: Signals;
  /** Payments: the ledger entries of a completed paid task, written in the completing transaction. */
  settlement: TaskSettlement;
  /** This node's delivery worker, which takes a new task's webhook job in the creating transaction when it has room. */
  deliveries: DeliveryHandOff;
  /**
   * Discovery over a task's own words, for a task that names neither capabilities nor an agent:
   * the agents the requester may see, best first, each with its relevance and whether it is a weak
   * match (discovery's floor).
   */
  discover(principal: Principal, words: string): Promise<DiscoveredMatch[]>;
  /**
   * How long a task a poll hands out stays the agent's without an answer or a renewal
   * (POST /v1/tasks/{id}/lease): past it the task goes back to the queue (POLL_LEASE_MS).
   */
  pollLeaseMs: number;
  /** The key poll task tokens are derived from (made from SECRETS_KEY), the same on every node. */
  pollTokenKey: Buffer;
  /** Told when a poll starts holding its request; what it returns is called when the hold ends (the metrics). */
  onPollHeld?: () => () => void;
  /**
   * Discovery, told of a completed task its requester judged: rated it, or signed an outcome receipt
   * bound to it (it keeps the well-judged ones as evidence of what the agent is for). Awaited before
   * the rating or the receipt is answered, so the evidence is searchable by then.
   */
  learnFromWork?(work: JudgedWork): Promise<unknown>;
  /**
   * Told of a task its requester just cancelled, after the cancel is stored: an A2A agent working on
   * it is sent CancelTask (webhook and poll agents see the task's status). Not awaited; whatever
   * happens there, the cancel stands.
   */
  onCancelled?(task: Task): void;
}

/** A completed task its requester just judged, as discovery is told of it. */
export interface JudgedWork {
  taskId: string;
  agentId: string;
  /** The person answerable for the request (for an agent's key, its owner). */
  requesterId: string;
  title: string | null;
  description: string;
  searchQuery: string | null;
  /** The requester's rating, if any (the one just given, or an earlier one). */
  rating: number | null;
  /** The outcome (`success`, `failure`, ...) of the receipt bound to the task just received; null for a rating. */
  boundOutcome: string | null;
}

/** One result of discovering agents by a task's words. */
export interface DiscoveredMatch {
  agentId: string;
  relevance: number;
  weakMatch: boolean;
}

/** How a candidate was found when the task was routed by its words: its discovery rank (1 = best) and relevance. */
export interface DiscoveryPlace {
  rank: number;
  relevance: number;
}

/** What discovery is asked when a task gives only words: as much of the title and description as a query holds. */
const DISCOVERY_QUERY_MAX = 500;

/**
 * A submission whose chosen agent needs a field the description does not give is refused before
 * anything is stored: the requester is still there to add it, and `found` shows what was understood.
 */
function inputMissing(agent: AgentRecord, missing: string[], found: Record<string, unknown>): AppError {
  const fields = missing.join(', ');
  return new AppError(
    'BAD_REQUEST',
    `${agent.name} needs ${missing.length > 1 ? 'the fields' : 'the field'} ${fields}, which the description does not give; state ${missing.length > 1 ? 'them' : 'it'} in the description or send input`,
    missing.map((field) => ({ path: `/input/${field}`, message: `is required by ${agent.name} and was not found in the description` })),
    { found },
  );
}

function sameToken(token: string, hash: string | null): boolean {
  if (!hash) return false;
  const given = Buffer.from(hashSecret(token), 'utf8');
  const stored = Buffer.from(hash, 'utf8');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * A poll hand-out's task token, derived from the task and its agent rather than drawn at random: a
 * task whose lease ran out is handed out again with the same token, so whichever holder answers
 * first finishes it and any later answer is told it is already finished, never counted twice.
 */
export function pollTaskToken(key: Buffer, taskId: string, agentId: string): string {
  return `tkt_${createHmac('sha256', key).update(`${taskId}\n${agentId}`).digest('base64url')}`;
}

export function createTasksService(deps: TasksDeps) {
  const { store, clock, registry, trust, assigner, signals, settlement, deliveries, discover, learnFromWork } = deps;
  const statsFor = withRecentStats(store.statsFor, clock);
  // Aborted when the node shuts down: held polls answer at once.
  const stopping = new AbortController();
  // Who the agent is proven to be travels with every mention of it (docs/registry.md, "Identity levels").
  const agentRef = (agent: AgentRecord) => ({
    id: agent.id,
    name: agent.name,
    slug: agent.slug,
    identityLevel: identityLevelOf(agent),
    verifiedDomain: agent.verifiedDomain,
  });

  /** Statuses a task reaches only with an agent assigned to it. */
  const statusesOfAnAgent = new Set<Task['status']>(['matched', 'in_progress', 'completed']);

  /** `inHand`: agents the caller has just read (a new task's), which are not read again. */
  async function views(tasks: Task[], inHand: AgentRecord[] = []): Promise<TaskView[]> {
    const agents = new Map(inHand.map((agent) => [agent.id, agent]));
    const agentIds = [
      ...new Set(tasks.flatMap((task) => [task.assignedAgentId, task.targetAgentId]).filter((id): id is string => id !== null && !agents.has(id))),
    ];
    // One query for the page's agents, whatever the page size.
    if (agentIds.length > 0) for (const agent of await registry.findAgents(agentIds)) agents.set(agent.id, agent);
    return tasks.map((task) => {
      const agent = task.assignedAgentId ? agents.get(task.assignedAgentId) : undefined;
      const named = task.targetAgentId ? agents.get(task.targetAgentId) : undefined;
      return {
        id: task.id,
        title: task.title,
        description: task.description,
        input: task.input,
        capabilities: task.capabilities,
        // The requester's class, or the catalogue class of the agent that took it: what receipts bound to it name.
        taskClass: taskClassOf(task.taskClass, agent?.capabilities),
        status: task.status,
        assignedAgent: agent ? agentRef(agent) : null,
        requestedAgent: named ? agentRef(named) : null,
        // Deletion unsets the assigned agent; a status only an assigned agent gives, or a named agent gone, tells it was there.
        agentDeleted: (task.targetAgentId !== null && !named) || (task.assignedAgentId === null && statusesOfAnAgent.has(task.status)),
        result: task.result,
        error: task.error,
        priority: task.priority,
        metadata: task.metadata,
        maxPriceCents: task.maxPriceCents,
        currency: task.currency,
        priceCents: task.priceCents,
        rating: task.rating === null ? null : { score: task.rating, comment: task.ratingComment },
        createdAt: task.createdAt,
        updatedAt: task.updatedAt,
        expiresAt: task.expiresAt,
        deliveredAt: task.deliveredAt,
        completedAt: task.completedAt,
      };
    });
  }
  const viewOf = async (task: Task) => (await views([task]))[0] as TaskView;

  /**
   * A task naming an agent that would be public but is not listed is refused with that reason, so
   * the requester learns why rather than a bare 404; an agent they could never see stays 404.
   */
  const unlistedAgent = (agent: AgentRecord) => agentNotListed(agent.name, agent.listing.state as 'pending' | 'rejected' | 'delisted');
  async function unlistedRefusal(agentId: string): Promise<AppError | null> {
    const agent = await registry.findAgent(agentId);
    return agent && agent.visibility === 'public' && agent.listing.state !== 'listed' ? unlistedAgent(agent) : null;
  }

  /** Agents the requester may see that could take the task, ranked; hidden agents never appear, not even as excluded. */
  async function plan(
    principal: Principal,
    input: Pick<CreateTaskInput, 'agentId' | 'input' | 'capabilities' | 'taskClass' | 'maxPriceCents' | 'currency' | 'title' | 'description'>,
  ): Promise<{ candidates: Candidate[]; excluded: Exclusion[]; places?: Map<string, DiscoveryPlace>; noCloseMatch?: boolean }> {
    const capabilities = input.capabilities ?? [];
    const request = {
      capabilities,
      taskClass: input.taskClass ?? null,
      maxPriceCents: input.maxPriceCents ?? null,
      currency: input.currency ?? DEFAULT_CURRENCY,
    };
    const routingDeps = {
      availabilityOf: registry.availabilityOf,
      healthOf: registry.healthOf,
      trust,
      statsFor,
    };
    if (input.agentId) {
      const agent = await registry.visibleAgent(input.agentId, readerOf(principal));
      if (!agent) throw (await unlistedRefusal(input.agentId)) ?? notFound('Agent not found');
      if (agent.listing.state !== 'listed') throw unlistedAgent(agent);
      // Input given for a named agent must fit its schema, as the task form checks it; routed tasks
      // may end with any of several agents, so their input is the agents' to judge.
      const schema = agent.inputSchema();
      const problems = input.input && schema ? checkInputAgainstSchema(schema, input.input) : [];
      if (problems.length > 0)
        throw badRequest(
          `The input does not fit ${agent.name}'s input schema: ${problems.map((p) => `${p.path.slice('/body/input/'.length)} ${p.message}`).join('; ')}`,
          problems,
        );
      return rankCandidates([agent], request, routingDeps, false);
    }
    if (capabilities.length === 0) return planByWords(principal, input, request, routingDeps);
    const terms = [...new Set(requestedTermSets(capabilities).flatMap((set) => [...set]))];
    return rankCandidates(await registry.visibleWithAnyCapability(terms, readerOf(principal)), request, routingDeps, true);
  }

  /**
   * A task with only words is routed by discovery over them: the results that clear the weak-match
   * floor, in discovery's order, each passing the routing rules (availability, delivery, price).
   * None clearing it: no close match, and the task is created unmatched.
   */
  async function planByWords(
    principal: Principal,
    input: Pick<CreateTaskInput, 'title' | 'description'>,
    request: Parameters<typeof rankCandidates>[1],
    routingDeps: Parameters<typeof rankCandidates>[2],
  ) {
    const words = [input.title, input.description].filter(Boolean).join('. ').slice(0, DISCOVERY_QUERY_MAX);
    const close = (await discover(principal, words)).filter((match) => !match.weakMatch);
    if (close.length === 0) return { candidates: [], excluded: [], noCloseMatch: true };
    const places = new Map(close.map((match, i) => [match.agentId, { rank: i + 1, relevance: match.relevance }]));
    const { candidates, excluded } = await rankCandidates(await registry.findAgents([...places.keys()]), request, routingDeps, false);
    candidates.sort((a, b) => places.get(a.agent.id)!.rank - places.get(b.agent.id)!.rank);
    return { candidates, excluded, places };
  }

  /** The requester, or the owner of the agent the task is assigned to. */
  async function findVisible(principal: Principal, id: string): Promise<Task> {
    const task = await store.find(id);
    if (!task) throw notFound('Task not found');
    if (task.requesterId === principal.accountId) return task;
    if (task.assignedAgentId) {
      const agent = await registry.findAgent(task.assignedAgentId);
      const actsForAgent = principal.kind === 'agent' ? principal.agentId === agent?.id : true;
      if (agent && agent.ownerId === principal.personId && actsForAgent) return task;
    }
    throw notFound('Task not found');
  }

  /** Requester-only actions: the owner of the assigned agent sees the task, so is told 403; anyone else 404. */
  async function findForRequester(principal: Principal, id: string): Promise<Task> {
    const task = await findVisible(principal, id);
    if (task.requesterId !== principal.accountId) throw forbidden('Only the requester of this task can do this');
    return task;
  }

  async function replay(existing: { requestHash: string; firstResponse: unknown }, requestHash: string) {
    if (existing.requestHash !== requestHash) {
      throw new AppError('UNPROCESSABLE', 'This Idempotency-Key was used with a different request body');
    }
    return { status: 201 as const, body: existing.firstResponse as { data: TaskView } };
  }

  // Tasks created in one turn of the event loop whose jobs wait in the outbox wake the workers once.
  let workersToWake = false;
  function wakeWorkers() {
    if (workersToWake) return;
    workersToWake = true;
    setImmediate(() => {
      workersToWake = false;
      void signals.publish(DELIVERY_CHANNEL, '').catch(() => {});
    });
  }

  /** Tells whoever delivers a new matched task: a polling agent's wait, or the workers when no slot here took the job. */
  function notify(task: Pick<Task, 'status' | 'assignedAgentId'>, delivery: 'none' | 'claimed' | 'waiting') {
    if (task.status !== 'matched' || !task.assignedAgentId || delivery === 'claimed') return;
    if (delivery === 'waiting') wakeWorkers();
    else void signals.publish(AGENT_TASKS_CHANNEL, task.assignedAgentId).catch(() => {});
  }

  return {
    /** Account deletion waits while the account has open tasks, as requester or through its agents. */
    async deletionRefusal(accountId: string): Promise<string | null> {
      const { requested, assigned } = await store.openCounts(accountId);
      const open = [
        requested > 0 ? `${requested} task${requested === 1 ? '' : 's'} you requested` : null,
        assigned > 0 ? `${assigned} task${assigned === 1 ? '' : 's'} assigned to your agents` : null,
      ].filter((part) => part !== null);
      return open.length > 0 ? `Open tasks: ${open.join(' and ')}; cancel them or wait until they end.` : null;
    },

    async create(principal: Principal, input: CreateTaskInput, idempotencyKey: string | undefined) {
      const requestHash = createHash('sha256')
        .update(canonicalize(input) ?? '')
        .digest('hex');
      if (idempotencyKey) {
        const existing = await store.findByIdempotencyKey(principal.accountId, idempotencyKey);
        if (existing) return replay(existing, requestHash);
      }

      const { candidates, excluded, noCloseMatch } = await plan(principal, input);
      const now = isoNow(clock);
      const ranked = candidates.slice(0, MAX_CANDIDATES);
      const task: Task = {
        id: newId(),
        requesterId: principal.accountId,
        title: input.title ?? null,
        description: input.description,
        input: input.input ?? null,
        inputExtracted: false,
        capabilities: input.capabilities ?? [],
        taskClass: input.taskClass ?? null,
        targetAgentId: input.agentId ?? null,
        assignedAgentId: null,
        candidates: ranked.map((candidate) => candidate.agent.id),
        candidateIndex: 0,
        status: 'pending',
        tokenHash: null,
        result: null,
        error: null,
        priority: input.priority ?? 'normal',
        metadata: input.metadata ?? null,
        maxPriceCents: input.maxPriceCents ?? null,
        currency: input.currency ?? DEFAULT_CURRENCY,
        priceCents: null,
        rating: null,
        ratingComment: null,
        searchQuery: input.searchQuery?.trim() || null,
        createdAt: now,
        updatedAt: now,
        // From the same instant as createdAt, so the lifetime is exactly what was asked for.
        expiresAt: new Date(Date.parse(now) + (input.expiresInMinutes ?? DEFAULT_EXPIRY_MINUTES) * 60_000).toISOString(),
        deliveredAt: null,
        completedAt: null,
        pollLeaseUntil: null,
        pollHandouts: 0,
      };

      let delivery = null;
      const first = ranked[0];
      if (!first) {
        task.status = 'unmatched';
        task.error = noCloseMatch
          ? {
              code: 'no_close_match',
              message:
                'No agent you can see is a close match for this description (every search result is below the weak-match floor): ' +
                'describe the work in other words, name capabilities, or choose an agent',
            }
          : unmatchedError(excluded, input.agentId !== undefined, input.capabilities ?? []);
      } else {
        const assignment = await assigner.assign(task, first.agent, now);
        if (assignment.ok) {
          Object.assign(task, assignment.changes);
          delivery = assignment.delivery;
        } else if (assignment.error.code === 'input_missing' && assignment.error.missing !== undefined) {
          throw inputMissing(first.agent, assignment.error.missing, assignment.found ?? {});
        } else {
          Object.assign(task, { status: 'failed', assignedAgentId: first.agent.id, error: assignment.error, completedAt: now });
        }
      }

      const body = { data: (await views([task], first ? [first.agent] : []))[0] as TaskView };
      // Taken now, the job commits already claimed with the task and is sent once that commit lands.
      const slot: DeliverySlot | null = delivery ? deliveries.claimSlot() : null;
      if (delivery && slot) delivery = { ...delivery, attempts: 1, leaseUntil: slot.leaseUntil };
      let listeningUntil: string | null;
      try {
        ({ listeningUntil } = await store.insert(task, idempotencyKey ? { key: idempotencyKey, requestHash, firstResponse: body } : null, delivery));
      } catch (error) {
        slot?.release();
        if (idempotencyKey && isUniqueViolation(error)) {
          const raced = await store.findByIdempotencyKey(principal.accountId, idempotencyKey);
          if (raced) return replay(raced, requestHash);
        }
        throw error;
      }
      // The worker sends the task as just committed, to the agent as just routed to: nothing to read again.
      if (delivery && slot && first) slot.send(delivery, { task, agent: first.agent, listeningUntil });
      notify(task, delivery === null ? 'none' : slot ? 'claimed' : 'waiting');
      return { status: 201 as const, body };
    },

    /** What extraction gives for an agent's inputSchema, or a schema given inline, without creating anything. */
    async previewInput(principal: Principal, request: ExtractRequestInput) {
      const text = { ...(request.title ? { title: request.title } : {}), description: request.description };
      if ((request.agentId === undefined) === (request.inputSchema === undefined)) {
        throw badRequest('Give exactly one of agentId or inputSchema', [{ path: '/body', message: 'must have agentId or inputSchema, not both' }]);
      }
      if (request.inputSchema !== undefined) {
        const checked = validateInputSchema(request.inputSchema);
        if ('problems' in checked) throw badRequest(`inputSchema: ${checked.problems[0]?.path} ${checked.problems[0]?.message}`, checked.problems);
        return assigner.extract(checked.schema, text);
      }
      const agent = await registry.visibleAgent(request.agentId ?? '', readerOf(principal));
      if (!agent) throw notFound('Agent not found');
      const schema = agent.inputSchema();
      if (!schema) return { input: {}, missing: [] };
      return assigner.extract(schema, text);
    },

    async route(principal: Principal, input: CreateTaskInput) {
      const { candidates, excluded, places } = await plan(principal, input);
      return {
        candidates: candidates.map((candidate) => ({
          discovery: places?.get(candidate.agent.id) ?? null,
          agent: agentRef(candidate.agent),
          score: candidate.score,
          factors: candidate.factors,
          keyVerified: candidate.agent.provenKey !== null,
          availability: candidate.availability,
          deliveryMode: candidate.agent.deliveryMode,
        })),
        excluded: excluded.map((entry) => ({ agent: agentRef(entry.agent), code: entry.code, reason: entry.reason })),
        weights: { ...ROUTING_WEIGHTS },
      };
    },

    get: async (principal: Principal, id: string) => viewOf(await findVisible(principal, id)),

    /** A task the principal submitted; anyone else's, the assigned agent's owner included, is not found (the A2A front door). */
    async getRequested(principal: Principal, id: string): Promise<TaskView> {
      const task = await store.find(id);
      if (!task || task.requesterId !== principal.accountId) throw notFound('Task not found');
      return viewOf(task);
    },

    /** The principal's submitted tasks, newest first, a page after the task `before` names. */
    async listRequested(principal: Principal, before: { createdAt: string; id: string } | null, limit: number) {
      const { tasks, total } = await store.listForRequesterBefore(principal.accountId, before, limit);
      return { tasks: await views(tasks), total };
    },

    async list(principal: Principal, query: { role?: 'requester' | 'agent'; status?: string; limit: number; offset: number }) {
      const { tasks, total } =
        query.role === 'agent'
          ? await store.listForOwner(principal.personId, principal.kind === 'agent' ? principal.agentId : null, query.status, query.limit, query.offset)
          : await store.listForRequester(principal.accountId, query.status, query.limit, query.offset);
      return { data: await views(tasks), pagination: { limit: query.limit, offset: query.offset, total, hasMore: query.offset + tasks.length < total } };
    },

    async cancel(principal: Principal, id: string) {
      const task = await findForRequester(principal, id);
      const now = isoNow(clock);
      const cancelled = await store.transition(task.id, OPEN_STATUSES, { status: 'cancelled', updatedAt: now, completedAt: now });
      if (!cancelled) throw conflict(`A task that is ${task.status} cannot be cancelled`);
      await store.cancelDeliveries(task.id, now);
      deps.onCancelled?.(cancelled);
      return viewOf(cancelled);
    },

    async rate(principal: Principal, id: string, rating: { score: number; comment?: string }) {
      const task = await findForRequester(principal, id);
      if (task.status !== 'completed') throw conflict('Only a completed task can be rated');
      if (task.rating !== null) throw conflict('This task is already rated');
      // The read above answers the usual cases; the update's own condition settles a race.
      const rated = await store.rateOnce(task.id, rating.score, rating.comment ?? null, isoNow(clock));
      if (!rated) throw conflict('This task is already rated');
      if (learnFromWork && rated.assignedAgentId)
        await learnFromWork({
          taskId: rated.id,
          agentId: rated.assignedAgentId,
          requesterId: principal.personId,
          title: rated.title,
          description: rated.description,
          searchQuery: rated.searchQuery,
          rating: rating.score,
          boundOutcome: null,
        });
      return viewOf(rated);
    },

    /**
     * The receipts module's word that its requester signed an outcome receipt bound to this task
     * (docs/trust.md, "Task-bound evidence"): a completed task is told to discovery as a rating is.
     * A failed task is not (whatever the receipt says).
     */
    async boundOutcomeReceived(taskId: string, outcome: string) {
      if (!learnFromWork) return;
      const task = await store.find(taskId);
      if (!task || task.status !== 'completed' || !task.assignedAgentId) return;
      const requesterId = await store.requestingPerson(task.id);
      if (!requesterId) return;
      await learnFromWork({
        taskId: task.id,
        agentId: task.assignedAgentId,
        requesterId,
        title: task.title,
        description: task.description,
        searchQuery: task.searchQuery,
        rating: task.rating,
        boundOutcome: outcome,
      });
    },

    async callback(id: string, body: { taskToken: string; result?: unknown; error?: unknown }) {
      const hasResult = body.result !== undefined;
      const hasError = body.error !== undefined;
      if (hasResult === hasError) throw badRequest('Send exactly one of result or error', [{ path: '/body', message: 'must have result or error' }]);
      // The token is checked by the finishing update itself; the task is read only to say why nothing changed.
      const outcome = {
        status: hasResult ? ('completed' as const) : ('failed' as const),
        result: body.result ?? null,
        error: body.error ?? null,
        now: isoNow(clock),
      };
      const finished = await store.finish(id, settlement, outcome, hashSecret(body.taskToken));
      if (!finished) {
        const task = await store.find(id);
        if (!task || !sameToken(body.taskToken, task.tokenHash)) throw unauthorized('The task token is not valid for this task');
        if ((OPEN_STATUSES as readonly string[]).includes(task.status)) throw conflict(`This task expired at ${task.expiresAt}; it no longer takes a result`);
        throw conflict(`This task is already ${task.status}`);
      }
      if (finished.status === 'completed') settlement.afterCommit(finished.task);
      // The agent answered: a sign of life for its availability, as a heartbeat is.
      if (finished.task.assignedAgentId) await registry.markSeen(finished.task.assignedAgentId);
      return { id: finished.task.id, status: finished.status };
    },

    /**
     * The holder of a task a poll handed out keeps it another lease length from now (an answer needs
     * no renewal). A renewal that comes after the lease ran out, while the task still waits in the
     * queue, takes it back: the holder is still at work, and a poll taking it again would only start
     * the same work twice. Only the task's token does this; anyone else is told it is not valid, as
     * the callback tells them.
     */
    async renewLease(id: string, taskToken: string) {
      const now = isoNow(clock);
      const leaseUntil = isoIn(clock, deps.pollLeaseMs);
      const tokenHash = hashSecret(taskToken);
      const renewed = (await store.renewLease(id, tokenHash, leaseUntil, now)) ?? (await store.retakeLapsed(id, tokenHash, leaseUntil, now));
      if (renewed) return { id: renewed.id, status: renewed.status, leaseUntil };
      const task = await store.find(id);
      if (!task || !sameToken(taskToken, task.tokenHash)) throw unauthorized('The task token is not valid for this task');
      if ((OPEN_STATUSES as readonly string[]).includes(task.status)) {
        if (task.expiresAt <= now) throw conflict(`This task expired at ${task.expiresAt}; it no longer takes a result`);
        // Put back in the queue and taken again by a poll between the two updates: it is leased again, renewed as it is now.
        const retaken = task.status === 'in_progress' && task.pollLeaseUntil !== null ? await store.renewLease(id, tokenHash, leaseUntil, now) : undefined;
        if (retaken) return { id: retaken.id, status: retaken.status, leaseUntil };
        throw conflict('This task was not handed out by a poll; it has no lease to renew');
      }
      throw conflict(`This task is already ${task.status}`);
    },

    /** The task's status, for the agent holding its token (any other caller learns nothing, not even that it exists). */
    async stateForAgent(id: string, taskToken: string) {
      const task = await store.find(id);
      if (!task || !sameToken(taskToken, task.tokenHash)) throw unauthorized('The task token is not valid for this task');
      return { id: task.id, status: task.status };
    },

    /**
     * Shutdown: every held poll answers now with what it has (usually nothing), as if its wait had
     * ended, so the agent polls again (through a proxy, on another node) instead of being cut off.
     */
    stopWaiting(): void {
      stopping.abort();
    },

    /** Whether stopWaiting() was called: polls answered from now on carry a retry hint. */
    get stopping(): boolean {
      return stopping.signal.aborted;
    },

    /**
     * Takes up to `limit` tasks queued for a polling agent, holding the request up to `waitSeconds`
     * while none waits. Subscribing before looking means a task matched in between is not missed.
     */
    async poll(
      principal: Principal | null,
      agentId: string,
      signedHeader: string | undefined,
      waitSeconds: number,
      limit: number,
      clientGone: AbortSignal,
    ): Promise<DeliveryPayload[]> {
      const agent = await registry.authorizePoll(principal, agentId, signedHeader);
      if (agent.deliveryMode !== 'poll')
        throw conflict(`This agent receives its tasks by ${agent.deliveryMode === 'a2a' ? 'A2A message' : 'webhook'}; set deliveryMode "poll" to poll`);
      return holdFor(agentId, waitSeconds, clientGone, () => takeQueued(agentId, limit));
    },

    /**
     * A `listen` session's long poll (docs/cli.md, "agentry listen"): while it polls, the webhook
     * agent's deliveries are held back from its endpoint for the session, which takes them (and any
     * job no worker holds) with the Standard Webhooks headers the endpoint would have got. The owner's
     * credential, the agent's key or its signature only: diverting tasks is never an anonymous poll's.
     */
    async listen(
      principal: Principal | null,
      agentId: string,
      signedHeader: string | undefined,
      waitSeconds: number,
      limit: number,
      clientGone: AbortSignal,
    ): Promise<ListenedDelivery[]> {
      const agent = await authorizeListen(principal, agentId, signedHeader);
      const secret = agent.webhookSecret;
      if (!secret) throw conflict('This agent has no webhook secret to sign its deliveries with; create one with POST /v1/agents/{id}/webhook-secret');
      await store.listenUntil(agentId, isoIn(clock, waitSeconds * 1000 + LISTEN_GRACE_MS));
      const jobs = await holdFor(agentId, waitSeconds, clientGone, () => store.takeForListener(agentId, isoNow(clock), limit));
      const timestamp = Math.floor(clock.now().getTime() / 1000);
      return jobs.map((job) => ({
        webhookId: job.id,
        headers: webhookDeliveryHeaders(secret, job.id, timestamp, job.body as string),
        body: job.body as string,
      }));
    },

    /** The listen session ended: the agent's endpoint gets its deliveries again, those held back for the session first. */
    async stopListening(principal: Principal | null, agentId: string, signedHeader: string | undefined): Promise<void> {
      await authorizeListen(principal, agentId, signedHeader);
      await store.stopListening(agentId, isoNow(clock));
      wakeWorkers();
    },
  };

  async function authorizeListen(principal: Principal | null, agentId: string, signedHeader: string | undefined): Promise<AgentRecord> {
    if (!principal && signedHeader === undefined)
      throw unauthorized("Listening to an agent's deliveries needs its owner's credential, the agent's API key or X-Agent-Signature by its registration key");
    const agent = await registry.authorizePoll(principal, agentId, signedHeader);
    // An operator may let anyone poll a provisional agent; its deliveries go to whoever proves its key.
    if (agent.status === 'provisional' && signedHeader === undefined)
      throw unauthorized('Listening to a provisional agent needs X-Agent-Signature by its registration key');
    if (agent.deliveryMode !== 'webhook')
      throw conflict(`This agent receives its tasks by ${agent.deliveryMode === 'a2a' ? 'A2A message' : 'long poll'}; listen is for webhook agents`);
    return agent;
  }

  /**
   * Holds a poll up to `waitSeconds` until `take` finds something for the agent. Subscribing before
   * looking means a task matched in between is not missed.
   */
  async function holdFor<T>(agentId: string, waitSeconds: number, clientGone: AbortSignal, take: () => Promise<T[]>): Promise<T[]> {
    let wake: () => void = () => {};
    const unsubscribe = signals.subscribe(AGENT_TASKS_CHANNEL, (payload) => {
      if (payload === agentId) wake();
    });
    // A client that left ends the hold at once, and it takes nothing: tasks handed to a closed
    // socket would sit in progress, their token held by nobody, until they expire.
    const onGone = () => wake();
    clientGone.addEventListener('abort', onGone);
    const released = deps.onPollHeld?.();
    stopping.signal.addEventListener('abort', onGone);
    try {
      const deadline = Date.now() + waitSeconds * 1000;
      for (;;) {
        if (clientGone.aborted) return [];
        const woken = new Promise<void>((resolve) => (wake = resolve));
        const taken = await take();
        const remaining = deadline - Date.now();
        if (taken.length > 0 || remaining <= 0 || stopping.signal.aborted) return taken;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([woken, new Promise((resolve) => (timer = setTimeout(resolve, Math.min(remaining, POLL_RECHECK_MS))))]);
        clearTimeout(timer);
      }
    } finally {
      released?.();
      clientGone.removeEventListener('abort', onGone);
      stopping.signal.removeEventListener('abort', onGone);
      unsubscribe();
    }
  }

  async function takeQueued(agentId: string, limit: number): Promise<DeliveryPayload[]> {
    const waiting = await store.waitingFor(agentId, isoNow(clock), limit);
    const taken: DeliveryPayload[] = [];
    for (const task of waiting) {
      const token = pollTaskToken(deps.pollTokenKey, task.id, agentId);
      const now = isoNow(clock);
      const leaseUntil = isoIn(clock, deps.pollLeaseMs);
      // The lease is set by the update that hands the task out: no statement more per task.
      const moved = await store.transition(
        task.id,
        ['matched'],
        {
          status: 'in_progress',
          tokenHash: hashSecret(token),
          deliveredAt: now,
          updatedAt: now,
          pollLeaseUntil: leaseUntil,
          pollHandouts: task.pollHandouts + 1,
        },
        agentId,
      );
      // Another poll of the same agent may have taken it first.
      if (!moved) continue;
      taken.push({ ...deliveryPayload(moved, moved.input, token, assigner.callbackUrlOf(moved.id), now), leaseUntil });
    }
    return taken;
  }
}

export type TasksService = ReturnType<typeof createTasksService>;
