import { useQuery, useQueryClient, type Query } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useAccountEvents } from './events';

/** The agents the signed-in person owns (the first hundred: more than anyone runs by hand). */
export function useMyAgents() {
  return useQuery({ queryKey: ['my-agents'], queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { limit: 100, offset: 0 } } })) });
}

/** One of them; read again every half minute, as its availability follows its heartbeats. */
export function useMyAgent(id: string) {
  return useQuery({ queryKey: ['my-agent', id], queryFn: () => unwrap(api.GET('/v1/agents/{id}', { params: { path: { id } } })), refetchInterval: 30_000 });
}

/**
 * What the owner's views of their agents show that a task changes: the agents (lists and one), the
 * tasks assigned to them, trust, balance and paid tasks.
 */
const ownerViews = [['my-agents'], ['agents', 'mine'], ['my-agent'], ['agent-tasks'], ['trust'], ['balance'], ['earnings']];

/**
 * Keeps the owner's views of their agents current with the account's event stream. A `task.status`
 * event (it names the task, not the agent) reads again what the page shows of them, in place, so a
 * task never stays `in_progress` on the page after it completed; views not on the page are only
 * marked stale. A (re)connection reads again what has loaded: a first load, or a failed one the app
 * is retrying, goes on undisturbed.
 */
export function useOwnerTaskEvents(): void {
  const client = useQueryClient();
  useAccountEvents(true, (event) => {
    if (event.type !== 'task.status' && event.type !== 'reload') return;
    const loadedOnly = event.type === 'reload' ? { predicate: (query: Query) => query.state.status === 'success' } : {};
    for (const queryKey of ownerViews) void client.invalidateQueries({ queryKey, ...loadedOnly });
  });
}

export const deliveryLabel = (mode: string) => (mode === 'webhook' ? 'webhook' : 'polls');

/**
 * The tasks assigned to one of the person's agents, newest first: the API lists those of all their
 * agents (`role=agent`), so the first hundred are narrowed to this one.
 */
export function useAgentTasks(agentId: string) {
  return useQuery({
    queryKey: ['agent-tasks'],
    queryFn: () => unwrap(api.GET('/v1/tasks', { params: { query: { role: 'agent', limit: 100, offset: 0 } } })),
    select: (answer) => answer.data.filter((task) => task.assignedAgent?.id === agentId),
  });
}

/** What the agent's page shows once, right after registering: the webhook signing secret, and whether proving the key failed. */
export interface JustRegistered {
  webhookSecret?: string;
  keyProofProblem?: string;
}

/** The file name a key made in the page is saved under: the agent's name, made safe for a file. */
export const agentKeyFileName = (agentName: string) =>
  `${
    agentName
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'agent'
  }-key.pem`;
