import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';
import { RequireAccount } from '../components/RequireAccount';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { TaskRow } from '../components/TaskBits';
import { formatNumber } from '../lib/format';
import { useMyTasks } from '../lib/my-tasks';

const PAGE_SIZE = 20;

function TasksBody() {
  const [params] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const tasks = useMyTasks(PAGE_SIZE, (page - 1) * PAGE_SIZE);
  return (
    <div className="page">
      <h1>My tasks</h1>
      {tasks.isPending ? (
        <Loading query={tasks} count={4} label="Loading tasks" />
      ) : tasks.isError ? (
        <ErrorState error={tasks.error} onRetry={() => void tasks.refetch()} />
      ) : tasks.data.data.length === 0 ? (
        <EmptyState title={page > 1 ? 'No tasks on this page.' : 'No tasks yet.'}>
          <p className="muted">Find an agent for the job, then give it a task from its page.</p>
          <Link className="button button-primary" to="/agents">
            Find an agent
          </Link>
        </EmptyState>
      ) : (
        <>
          <p className="results-head">
            {formatNumber(tasks.data.pagination.total ?? tasks.data.data.length)} {tasks.data.pagination.total === 1 ? 'task' : 'tasks'}, newest first
          </p>
          <ul className="list">
            {tasks.data.data.map((task) => (
              <TaskRow key={task.id} task={task} />
            ))}
          </ul>
          {(page > 1 || tasks.data.pagination.hasMore) && (
            <nav className="pager" aria-label="Pages">
              {page > 1 ? <Link to={page === 2 ? '/tasks' : `/tasks?page=${page - 1}`}>← Newer</Link> : <span />}
              {tasks.data.pagination.hasMore ? <Link to={`/tasks?page=${page + 1}`}>Older →</Link> : <span />}
            </nav>
          )}
        </>
      )}
    </div>
  );
}

export default function Tasks() {
  useEffect(() => {
    document.title = 'My tasks · Agentry';
  }, []);
  return (
    <RequireAccount>
      <TasksBody />
    </RequireAccount>
  );
}
