import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import type { AgentTask, OwnedAgent } from '../../api/types';
import { ErrorState, Loading } from '../../components/States';
import { Time } from '../../components/TaskBits';
import { TrustClasses } from '../../components/TrustClasses';
import { relativeTime } from '../../lib/format';
import { useAgentTasks } from '../../lib/my-agents';

/** What the tabs show for a failure, whether or not it came from the API. */
export const asError = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught)));

/** Trust of the agent's key, or why it has none, with the way to add or prove one. */
export function AgentTrust({ agent }: { agent: OwnedAgent }) {
  return (
    <>
      <TrustClasses agent={agent} />
      {!agent.keyVerified && (
        <p>
          <Link to={`/me/agents/${encodeURIComponent(agent.id)}/keys`}>{agent.registrationPubkey ? 'Prove or replace its key' : 'Add a key'}</Link>
        </p>
      )}
    </>
  );
}

function taskError(task: AgentTask): { code?: string; message?: string } {
  return typeof task.error === 'object' && task.error !== null ? (task.error as { code?: string; message?: string }) : {};
}

/** What became of delivering a task to the agent, in words. */
function deliveryOutcome(task: AgentTask, deliveryMode: string): string {
  const error = taskError(task);
  if (error.code === 'delivery_failed') return `delivery failed: ${error.message ?? 'the endpoint did not accept it'}`;
  if (task.deliveredAt) return `delivered ${relativeTime(task.deliveredAt)}`;
  if (task.status === 'matched') return deliveryMode === 'webhook' ? 'waiting to be delivered' : 'waiting for the agent to poll';
  return 'not delivered';
}

export function AgentTasks({ agentId, mode, deliveryMode }: { agentId: string; mode: 'overview' | 'delivery'; deliveryMode: string }) {
  const tasks = useAgentTasks(agentId);
  if (tasks.isPending) return <Loading query={tasks} count={2} label="Loading tasks" />;
  if (tasks.isError) return <ErrorState error={tasks.error} onRetry={() => void tasks.refetch()} />;
  if (tasks.data.length === 0) return <p className="muted">No tasks assigned to it yet.</p>;
  return (
    <table className="data">
      <thead>
        <tr>
          <th scope="col">Task</th>
          <th scope="col">Status</th>
          <th scope="col">{mode === 'delivery' ? 'Delivery' : 'Submitted'}</th>
        </tr>
      </thead>
      <tbody>
        {tasks.data.slice(0, mode === 'overview' ? 10 : 20).map((task) => (
          <tr key={task.id}>
            <td className="task-title">
              <Link to={`/tasks/${encodeURIComponent(task.id)}`}>{task.title ?? task.description}</Link>
            </td>
            <td>
              <span className={`badge status-${task.status}`}>{task.status}</span>
            </td>
            <td>{mode === 'delivery' ? deliveryOutcome(task, deliveryMode) : <Time iso={task.createdAt} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
