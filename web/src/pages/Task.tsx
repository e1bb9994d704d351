import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { Task } from '../api/types';
import { Chips } from '../components/AgentBits';
import { RequireAccount } from '../components/RequireAccount';
import { ErrorState, SkeletonRows } from '../components/States';
import { isOpenStatus, StatusChip, taskHeading, Time } from '../components/TaskBits';
import { useAccountEvents } from '../lib/events';
import { safeHttpUrl } from '../lib/format';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const imagePath = /\.(png|jpe?g|gif|webp|avif)$/i;

/** The http(s) image addresses anywhere in a result, each with where it was found (for its alt text). */
function imagesIn(value: unknown, path = 'result', found: { url: string; path: string }[] = []): { url: string; path: string }[] {
  if (found.length >= 12) return found;
  if (typeof value === 'string') {
    const url = safeHttpUrl(value);
    if (url && url.startsWith('https:') && imagePath.test(new URL(url).pathname)) found.push({ url, path });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => imagesIn(item, `${path}[${index}]`, found));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) imagesIn(item, `${path}.${key}`, found);
  }
  return found;
}

function CancelDialog({ task, open, onClose }: { task: Task; open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const client = useQueryClient();
  const cancel = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/tasks/{id}/cancel', { params: { path: { id: task.id } } })),
    onSuccess: ({ data }) => {
      client.setQueryData(['tasks', 'one', task.id], { data });
      void client.invalidateQueries({ queryKey: ['tasks', 'mine'] });
      onClose();
    },
  });
  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
    if (!open && dialog.current?.open) dialog.current.close();
  }, [open]);
  return (
    <dialog ref={dialog} onClose={() => !dialog.current?.open && onClose()} aria-labelledby="cancel-title">
      <h2 id="cancel-title">Cancel this task?</h2>
      <p>The agent will not be asked to finish it, and a result that arrives later is refused. This cannot be undone.</p>
      {cancel.isError && <p className="form-error">{cancel.error.message}</p>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Keep it
        </button>
        <button type="button" className="button button-danger" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
          Cancel task
        </button>
      </div>
    </dialog>
  );
}

function RatingForm({ task }: { task: Task }) {
  const client = useQueryClient();
  const [score, setScore] = useState<number | null>(null);
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);
  const rate = useMutation({
    mutationFn: (body: { score: number; comment?: string }) => unwrap(api.POST('/v1/tasks/{id}/rating', { params: { path: { id: task.id } }, body })),
    onSuccess: ({ data }) => client.setQueryData(['tasks', 'one', task.id], { data }),
    onError: (caught) => setError(caught instanceof ApiError ? caught.message : String(caught)),
  });
  if (task.rating) {
    return (
      <section aria-labelledby="rating-title">
        <h2 id="rating-title">Your rating</h2>
        <p>
          <strong>{task.rating.score} out of 5</strong>
          {task.rating.comment && <> · {task.rating.comment}</>}
        </p>
      </section>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (score === null) {
      setError('Choose a score from 1 to 5');
      return;
    }
    setError(null);
    rate.mutate({ score, ...(comment.trim() ? { comment: comment.trim() } : {}) });
  };
  const commentError = comment.length > 1000 ? 'At most 1,000 characters' : null;
  return (
    <section aria-labelledby="rating-title">
      <h2 id="rating-title">Rate the result</h2>
      <form onSubmit={submit} noValidate>
        <fieldset className="rating" aria-describedby="rating-message">
          <legend>Score</legend>
          {[1, 2, 3, 4, 5].map((value) => (
            <label key={value}>
              <input type="radio" name="score" value={value} checked={score === value} onChange={() => setScore(value)} />
              {value}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor="rating-comment">Comment (optional)</label>
          <textarea
            id="rating-comment"
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            aria-invalid={Boolean(commentError)}
            aria-describedby="rating-message"
          />
        </div>
        <p id="rating-message" className="field-error">
          {commentError ?? error}
        </p>
        <button type="submit" className="button button-primary" disabled={rate.isPending || Boolean(commentError)}>
          Send rating
        </button>
      </form>
    </section>
  );
}

function Result({ task }: { task: Task }) {
  if (task.status === 'completed') {
    const images = imagesIn(task.result);
    return (
      <section aria-labelledby="result-title">
        <h2 id="result-title">Result</h2>
        {images.length > 0 && (
          <div className="result-images">
            {images.map((image) => (
              <a key={image.path} href={image.url} target="_blank" rel="noopener noreferrer">
                <img src={image.url} alt={`Image in the result (${image.path})`} width={320} height={240} loading="lazy" referrerPolicy="no-referrer" />
              </a>
            ))}
          </div>
        )}
        <pre className="json" tabIndex={0} aria-label="Result as JSON">
          {pretty(task.result)}
        </pre>
      </section>
    );
  }
  if (task.error !== null && task.error !== undefined) {
    const error = task.error as { code?: unknown; message?: unknown };
    return (
      <section aria-labelledby="error-title" className="task-error">
        <h2 id="error-title">{task.status === 'cancelled' ? 'Cancelled' : 'What went wrong'}</h2>
        {typeof error.message === 'string' && <p>{error.message}</p>}
        {typeof error.code === 'string' && (
          <p className="muted">
            Code <span className="mono">{error.code}</span>
          </p>
        )}
        {typeof error.message !== 'string' && <pre className="json">{pretty(task.error)}</pre>}
      </section>
    );
  }
  return null;
}

function TaskBody({ id }: { id: string }) {
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const task = useQuery({ queryKey: ['tasks', 'one', id], queryFn: () => unwrap(api.GET('/v1/tasks/{id}', { params: { path: { id } } })) });
  const open = task.data ? isOpenStatus(task.data.data.status) : true;
  // Live until the task ends: every status change, and every (re)connection, loads it again.
  useAccountEvents(open && !task.isError, (event) => {
    if (event.type === 'reload' || event.taskId === id) void client.invalidateQueries({ queryKey: ['tasks', 'one', id] });
  });
  useEffect(() => {
    if (task.data) document.title = `${taskHeading(task.data.data)} · Agentry`;
  }, [task.data]);
  if (task.isPending) return <SkeletonRows count={2} label="Loading the task" />;
  if (task.isError) {
    const missing = task.error instanceof ApiError && task.error.status === 404;
    return missing ? (
      <div className="state">
        <p className="state-title">No such task.</p>
        <p className="muted">It may belong to another account. Your own tasks are listed under My tasks.</p>
        <Link to="/tasks">My tasks</Link>
      </div>
    ) : (
      <ErrorState error={task.error} onRetry={() => void task.refetch()} />
    );
  }
  const current = task.data.data;
  return (
    <>
      <p className="muted">
        <Link to="/tasks">My tasks</Link>
      </p>
      <div className="agent-header">
        <h1>{taskHeading(current)}</h1>
        {open && (
          <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
            Cancel task
          </button>
        )}
      </div>
      <p className="task-status" aria-live="polite">
        Status <StatusChip status={current.status} />
        {open && <span className="muted"> · updates live</span>}
      </p>
      <dl className="facts task-facts">
        <dt>Agent</dt>
        <dd>{current.assignedAgent ? <Link to={`/agents/${current.assignedAgent.slug}`}>{current.assignedAgent.name}</Link> : 'none yet'}</dd>
        <dt>Submitted</dt>
        <dd>
          <Time iso={current.createdAt} />
        </dd>
        <dt>Last change</dt>
        <dd>
          <Time iso={current.updatedAt} />
        </dd>
        {current.completedAt ? (
          <>
            <dt>Finished</dt>
            <dd>
              <Time iso={current.completedAt} />
            </dd>
          </>
        ) : (
          <>
            <dt>Expires</dt>
            <dd>
              <Time iso={current.expiresAt} />
            </dd>
          </>
        )}
      </dl>
      {current.capabilities.length > 0 && <Chips items={current.capabilities} label="Capabilities asked for" />}
      <h2>Description</h2>
      <p className="task-description">{current.description}</p>
      {current.input !== null && current.input !== undefined && (
        <>
          <h2>Input</h2>
          <pre className="json" tabIndex={0} aria-label="Input as JSON">
            {pretty(current.input)}
          </pre>
        </>
      )}
      <Result task={current} />
      {current.status === 'completed' && <RatingForm task={current} />}
      {open && <CancelDialog task={current} open={confirming} onClose={() => setConfirming(false)} />}
    </>
  );
}

export default function TaskPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccount>
      <div className="page">
        <TaskBody id={id} />
      </div>
    </RequireAccount>
  );
}
