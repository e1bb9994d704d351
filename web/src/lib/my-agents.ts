import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** The agents the signed-in person owns (the first hundred: more than anyone runs by hand). */
export function useMyAgents() {
  return useQuery({ queryKey: ['my-agents'], queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { limit: 100, offset: 0 } } })) });
}

/** One of them; read again every half minute, as its availability follows its heartbeats. */
export function useMyAgent(id: string) {
  return useQuery({ queryKey: ['my-agent', id], queryFn: () => unwrap(api.GET('/v1/agents/{id}', { params: { path: { id } } })), refetchInterval: 30_000 });
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
