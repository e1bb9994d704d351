import { Link } from 'react-router';
import type { Task } from '../api/types';
import { exactTime, relativeTime } from '../lib/format';

/** Statuses after which nothing changes any more. */
export const isOpenStatus = (status: string) => status === 'pending' || status === 'matched' || status === 'in_progress';

const tone: Record<string, string> = {
  completed: 'ok',
  failed: 'bad',
  expired: 'bad',
  unmatched: 'bad',
  cancelled: 'off',
};

/** The API's own word for the status, in a chip whose colour only repeats it. */
export const StatusChip = ({ status }: { status: string }) => <span className={`status status-${tone[status] ?? 'open'}`}>{status}</span>;

export const Time = ({ iso }: { iso: string }) => (
  <time dateTime={iso} title={exactTime(iso)}>
    {relativeTime(iso)}
  </time>
);

export const taskHeading = (task: Pick<Task, 'title' | 'description'>) =>
  task.title ?? (task.description.length > 80 ? `${task.description.slice(0, 79)}…` : task.description);

/** One task in a list: what it is, its status, its agent and when. */
export function TaskRow({ task }: { task: Task }) {
  return (
    <li className="card task-row">
      <div className="task-row-head">
        <Link to={`/tasks/${task.id}`} className="task-row-title">
          {taskHeading(task)}
        </Link>
        <StatusChip status={task.status} />
      </div>
      <div className="agent-card-meta">
        <span>{task.assignedAgent ? task.assignedAgent.name : task.requestedAgent ? `${task.requestedAgent.name} (did not take it)` : 'No agent'}</span>
        <span>
          Submitted <Time iso={task.createdAt} />
        </span>
      </div>
    </li>
  );
}
