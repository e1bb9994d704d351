import { useMutation } from '@tanstack/react-query';
import { useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import type { Currency, Task } from '../api/types';
import { formatMoney } from '../lib/format';

/** What an unmatched or failed task records in `error`, as far as the page reads it. */
interface TaskError {
  code?: string;
  message?: string;
  cause?: string;
  agentPrice?: { cents: number; currency: string };
}

const errorOf = (task: Task): TaskError =>
  typeof task.error === 'string' ? { message: task.error } : typeof task.error === 'object' && task.error !== null ? (task.error as TaskError) : {};

/** Why a named agent could not take the task, in a person's words (the codes of docs/routing.md). */
const notTaking: Record<string, string> = {
  offline: 'it has not been seen for a day, so it is not taking tasks',
  maintenance: 'its owner has put it in maintenance',
  no_endpoint: 'it has nowhere to receive tasks yet',
  no_webhook_secret: 'its owner has not finished setting up its delivery',
};

/** Where to look for another agent for the same task. */
const searchFor = (task: Task) =>
  task.capabilities.length > 0
    ? `/agents?capability=${encodeURIComponent(task.capabilities[0]!)}`
    : `/agents?q=${encodeURIComponent(task.title ?? task.description.slice(0, 80))}`;

/**
 * The same task sent again to the same agent with the budget it asks: a new task (the refused one
 * stays as it was), with its own idempotency key so a retry after a lost answer makes no second one.
 */
function SendAgainWithBudget({ task, agentId, price }: { task: Task; agentId: string; price: { cents: number; currency: string } }) {
  const navigate = useNavigate();
  const idempotencyKey = useRef(crypto.randomUUID());
  const send = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/tasks', {
          params: { header: { 'idempotency-key': idempotencyKey.current } },
          body: {
            agentId,
            description: task.description,
            ...(task.title !== null && { title: task.title }),
            ...(task.input !== null && { input: task.input }),
            ...(task.taskClass !== null && { taskClass: task.taskClass }),
            maxPriceCents: price.cents,
            currency: price.currency as Currency,
          },
        }),
      ),
    onSuccess: ({ data }) => navigate(`/tasks/${encodeURIComponent(data.id)}`),
  });
  return (
    <>
      <button type="button" className="button button-primary" disabled={send.isPending} onClick={() => send.mutate()}>
        Send again with a budget of {formatMoney(price.cents, price.currency)}
      </button>
      {send.isError && (
        <p className="form-error" role="alert">
          {send.error.message}
        </p>
      )}
    </>
  );
}

/** Why an unmatched task was not done, and the action that fixes it. */
function Unmatched({ task }: { task: Task }) {
  const error = errorOf(task);
  const named = task.requestedAgent;
  const another = <Link to={searchFor(task)}>Choose another agent</Link>;
  if (!named) {
    return (
      <>
        <p>No agent could take this task. {error.message && <span className="muted">({error.message})</span>}</p>
        <p>
          <Link to={searchFor(task)}>Find an agent for it</Link> and give the task to that one.
        </p>
      </>
    );
  }
  const price = error.agentPrice;
  if (price && (error.cause === 'price_above_max' || error.cause === 'price_unbudgeted')) {
    return (
      <>
        <p>
          {named.name} asks {formatMoney(price.cents, price.currency)} a task
          {error.cause === 'price_above_max' && task.maxPriceCents !== null ? `, above your budget of ${formatMoney(task.maxPriceCents, task.currency)}` : ''}.
          Set a budget of at least that and send again, or choose another agent.
        </p>
        <p className="actions">
          <SendAgainWithBudget task={task} agentId={named.id} price={price} /> {another}
        </p>
      </>
    );
  }
  if (price && error.cause === 'price_currency') {
    return (
      <>
        <p>
          {named.name} is paid in {price.currency.toUpperCase()} ({formatMoney(price.cents, price.currency)} a task), and this task paid in{' '}
          {task.currency.toUpperCase()}.
        </p>
        <p className="actions">
          <Link className="button" to={`/agents/${encodeURIComponent(named.slug)}/task`}>
            Give {named.name} the task again
          </Link>{' '}
          {another}
        </p>
      </>
    );
  }
  const why = (error.cause && notTaking[error.cause]) ?? 'it cannot take tasks now';
  return (
    <>
      <p>
        {named.name} did not get this task: {why}.
      </p>
      <p>
        {another}, or try {named.name} again later.
      </p>
    </>
  );
}

/** A task that ended without a result: what happened, in words, and what to do about it. */
export function TaskOutcome({ task }: { task: Task }) {
  const error = errorOf(task);
  const title = { unmatched: 'Why it was not sent', failed: 'What went wrong', expired: 'Expired', cancelled: 'Cancelled' }[task.status as string];
  if (!title) return null;
  return (
    <section aria-labelledby="outcome-title" className="task-error">
      <h2 id="outcome-title">{title}</h2>
      {task.status === 'unmatched' ? (
        <Unmatched task={task} />
      ) : task.status === 'expired' ? (
        <p>No result came before the task expired. {task.assignedAgent && <Link to={searchFor(task)}>Choose another agent</Link>}</p>
      ) : task.status === 'cancelled' ? (
        <p>You cancelled this task; the agent was told not to finish it.</p>
      ) : (
        <>
          <p>{error.message ?? 'The agent reported a failure without saying why.'}</p>
          {error.code && (
            <p className="muted">
              Code <span className="mono">{error.code}</span>
            </p>
          )}
        </>
      )}
    </section>
  );
}
