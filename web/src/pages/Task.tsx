import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { Task } from '../api/types';
import { Chips, IdentityBadge } from '../components/AgentBits';
import { RequireAccount } from '../components/RequireAccount';
import { ErrorState, Loading } from '../components/States';
import { isOpenStatus, StatusChip, taskHeading, Time } from '../components/TaskBits';
import { OutcomeReceipt } from '../components/OutcomeReceipt';
import { TaskOutcome } from '../components/TaskOutcome';
import { useAccountEvents } from '../lib/events';
import { ReadableValue } from '../components/ReadableValue';
import { formatMoney } from '../lib/format';
import { parseInputSchema } from '../lib/input-schema';

/** The price agreed when the agent took the task and, once it ended, whether it was charged. */
function priceText(task: Task, open: boolean): string {
  if (task.priceCents === null) {
    if (open) return task.maxPriceCents !== null ? `up to ${formatMoney(task.maxPriceCents, task.currency)} (your budget)` : 'free agents only';
    return 'not charged';
  }
  if (task.priceCents === 0) return 'free';
  const agreed = `${formatMoney(task.priceCents, task.currency)} agreed`;
  if (open) return `${agreed}; charged when it completes`;
  return task.status === 'completed' ? `${agreed}, charged` : `${agreed}, not charged`;
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
    // Escape closes the state at once (its cancel event comes before the close, which is reported
    // later): "Cancel task" pressed right after opens the dialog again instead of finding it open.
    <dialog ref={dialog} onCancel={onClose} onClose={() => !dialog.current?.open && onClose()} aria-labelledby="cancel-title">
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

/** What each score means, shown under its number. */
const scoreWords = ['Poor', 'Fair', 'Good', 'Very good', 'Excellent'];

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
          {scoreWords.map((word, index) => (
            <label key={word}>
              <input type="radio" name="score" value={index + 1} checked={score === index + 1} onChange={() => setScore(index + 1)} />
              <span className="rating-score">{index + 1}</span>
              <span className="rating-word">{word}</span>
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
  if (task.status !== 'completed') return null;
  return (
    <section aria-labelledby="result-title">
      <h2 id="result-title">Result</h2>
      <ReadableValue value={task.result} name="result" />
    </section>
  );
}

/** The input under the names the agent's task form gave its fields (the agent's public page has its schema). */
function Input({ task }: { task: Task }) {
  const agent = task.assignedAgent ?? task.requestedAgent;
  const slug = agent?.slug ?? '';
  const detail = useQuery({
    queryKey: ['agent', slug],
    enabled: slug !== '',
    retry: false,
    queryFn: () => unwrap(api.GET('/v1/discover/{slug}', { params: { path: { slug } } })),
  });
  const schema = parseInputSchema(detail.data?.data.inputSchema);
  return (
    <section aria-labelledby="input-title">
      <h2 id="input-title">Input</h2>
      <ReadableValue value={task.input} name="input" schema={schema} />
    </section>
  );
}

function TaskBody({ id }: { id: string }) {
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const task = useQuery({ queryKey: ['tasks', 'one', id], queryFn: () => unwrap(api.GET('/v1/tasks/{id}', { params: { path: { id } } })) });
  const open = task.data ? isOpenStatus(task.data.data.status) : true;
  // Live until the task ends: every status change, and every (re)connection, loads it again.
  useAccountEvents(open && !task.isError, (event) => {
    if (event.type === 'reload' || (event.type === 'task.status' && event.taskId === id)) void client.invalidateQueries({ queryKey: ['tasks', 'one', id] });
  });
  useEffect(() => {
    if (task.data) document.title = `${taskHeading(task.data.data)} · Agentry`;
  }, [task.data]);
  if (task.isPending) return <Loading query={task} count={2} label="Loading the task" />;
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
  const agentShown = current.assignedAgent ?? current.requestedAgent;
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
        {(agentShown ?? (open || current.agentDeleted)) && (
          <>
            <dt>Agent</dt>
            <dd>
              {agentShown ? (
                <Link to={`/agents/${encodeURIComponent(agentShown.slug)}`}>{agentShown.name}</Link>
              ) : current.agentDeleted ? (
                <span className="muted">a deleted agent</span>
              ) : (
                'none yet'
              )}
              {agentShown && agentShown.identityLevel !== 'none' && (
                <>
                  {' '}
                  <IdentityBadge agent={agentShown} />
                </>
              )}
              {!current.assignedAgent && current.requestedAgent && <span className="muted"> (asked for; it did not take the task)</span>}
            </dd>
          </>
        )}
        <dt>Price</dt>
        <dd data-testid="task-price">{priceText(current, open)}</dd>
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
          open && (
            <>
              <dt>Expires</dt>
              <dd>
                <Time iso={current.expiresAt} />
              </dd>
            </>
          )
        )}
      </dl>
      {current.capabilities.length > 0 && <Chips items={current.capabilities} label="Capabilities asked for" />}
      <h2>Description</h2>
      <p className="task-description">{current.description}</p>
      {current.input !== null && current.input !== undefined && <Input task={current} />}
      <Result task={current} />
      <TaskOutcome task={current} />
      {current.status === 'completed' && <RatingForm task={current} />}
      <OutcomeReceipt task={current} />
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
