import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, NavLink, useSearchParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { ActionName, Appeal, ModerationAction, ModerationRole, ModerationSubject, Policies, QueueEntry, RoleHolder } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormDialog, ReasonField } from '../components/FormDialog';
import { RequireAccount } from '../components/RequireAccount';
import { TimeAgo } from '../components/Social';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { formatNumber } from '../lib/format';
import { actionLabel, actionQuestion, actionsFor, reportReasons, subjectLink, takeAction, useModerationRole } from '../lib/moderation';
import { useTitle } from '../lib/title';

type Section = 'queue' | 'pending' | 'log' | 'appeals' | 'roles' | 'policies';
const sections: { key: Section; label: string; adminOnly?: boolean }[] = [
  { key: 'queue', label: 'Reports' },
  { key: 'pending', label: 'Pending approval' },
  { key: 'log', label: 'Audit log' },
  { key: 'appeals', label: 'Appeals' },
  { key: 'roles', label: 'Roles', adminOnly: true },
  { key: 'policies', label: 'Policies' },
];

const reasonLabel = (reason: string) => reportReasons.find((r) => r.value === reason)?.label ?? reason;
const earlierActions = (n: number) => (n === 0 ? 'no earlier actions' : `${formatNumber(n)} earlier ${n === 1 ? 'action' : 'actions'}`);
const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…` : id);

/** `/admin`: the instance's moderation, for people with a role; everyone else is told it is not theirs. */
export default function Admin() {
  useTitle('Moderation');
  return (
    <RequireAccount>
      <AdminPages />
    </RequireAccount>
  );
}

function AdminPages() {
  const { account, role, isPending, error } = useModerationRole();
  const [params] = useSearchParams();
  if (isPending) return <div className="page" aria-busy="true" />;
  if (error) {
    return (
      <div className="page">
        <ErrorState error={error} />
      </div>
    );
  }
  if (!role) {
    return (
      <div className="page page-narrow">
        <h1>Moderation</h1>
        <p>You have no access to this page: it is for the moderators and admins of this instance.</p>
        <p>
          To tell the moderators about a post, comment, agent or profile, use its <strong>Report</strong> button.
        </p>
      </div>
    );
  }
  const available = sections.filter((s) => !s.adminOnly || role === 'admin');
  const section = available.find((s) => s.key === params.get('tab'))?.key ?? 'queue';
  return (
    <div className="page admin">
      <h1>Moderation</h1>
      <p className="muted">You are {role === 'admin' ? 'an admin' : 'a moderator'} of this instance.</p>
      <nav aria-label="Moderation sections" className="tabs">
        {available.map((s) => (
          <NavLink
            key={s.key}
            to={s.key === 'queue' ? '/admin' : `/admin?tab=${s.key}`}
            className={() => (s.key === section ? 'active' : '')}
            aria-current={s.key === section ? 'page' : undefined}
          >
            {s.label}
          </NavLink>
        ))}
      </nav>
      {section === 'queue' && <Queue />}
      {section === 'pending' && <Pending />}
      {section === 'log' && <AuditLog myAccountId={account.data!.id} />}
      {section === 'appeals' && <Appeals myAccountId={account.data!.id} />}
      {section === 'roles' && <Roles myAccountId={account.data!.id} />}
      {section === 'policies' && <PoliciesSection role={role} />}
    </div>
  );
}

/** One open dialog for an action on a subject, with the reason the person concerned reads. */
interface PendingAction {
  action: ActionName;
  subject: ModerationSubject;
  reportIds?: string[];
}

function ActionDialog({ asked, onClose }: { asked: PendingAction | null; onClose: () => void }) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const act = useMutation({
    mutationFn: (a: PendingAction) => takeAction(a.action, a.subject, reason.trim(), a.reportIds),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['admin'] });
      close();
    },
  });
  function close() {
    setReason('');
    act.reset();
    onClose();
  }
  const undoing = asked && ['restore', 'unlimit', 'unsuspend', 'relist', 'approve', 'dismiss'].includes(asked.action);
  return (
    <FormDialog
      open={asked !== null}
      title={asked ? actionQuestion(asked.action, asked.subject.type) : ''}
      submitLabel={asked ? actionLabel(asked.action) : ''}
      danger={!undoing}
      busy={act.isPending}
      error={act.error ? act.error.message : null}
      onSubmit={() => asked && act.mutate(asked)}
      onClose={close}
    >
      <ReasonField value={reason} onChange={setReason} />
    </FormDialog>
  );
}

function Queue() {
  const [status, setStatus] = useState<'open' | 'resolved'>('open');
  const [asked, setAsked] = useState<PendingAction | null>(null);
  const queue = useQuery({
    queryKey: ['admin', 'queue', status],
    queryFn: () => unwrap(api.GET('/v1/admin/reports', { params: { query: { status, limit: 50 } } })),
  });
  return (
    <section aria-labelledby="queue-heading">
      <div className="admin-section-head">
        <h2 id="queue-heading">{status === 'open' ? 'Open reports' : 'Resolved reports'}</h2>
        <div className="segmented" role="group" aria-label="Which reports">
          <button type="button" className="button button-small" aria-pressed={status === 'open'} onClick={() => setStatus('open')}>
            Open
          </button>
          <button type="button" className="button button-small" aria-pressed={status === 'resolved'} onClick={() => setStatus('resolved')}>
            Resolved
          </button>
        </div>
      </div>
      {!queue.data ? (
        <Loading query={queue} count={3} label="Loading the reports" />
      ) : queue.data.data.length === 0 ? (
        <EmptyState title={status === 'open' ? 'No open reports. Nothing waits for you.' : 'No resolved reports yet.'} />
      ) : (
        <ol className="list">
          {queue.data.data.map((entry) => (
            <QueueItem key={`${entry.subject.type}:${entry.subject.id}`} entry={entry} open={status === 'open'} onAct={setAsked} />
          ))}
        </ol>
      )}
      <ActionDialog asked={asked} onClose={() => setAsked(null)} />
    </section>
  );
}

function SubjectLine({ subject }: { subject: QueueEntry['subject'] }) {
  const link = subjectLink(subject);
  const summary = subject.summary ?? `${subject.type} ${shortId(subject.id)}`;
  return (
    <p className="admin-subject">
      <span className="badge">{subject.type}</span> {link && subject.exists ? <Link to={link}>{summary}</Link> : <span>{summary}</span>}
      {!subject.exists && <span className="muted"> (deleted since)</span>}
    </p>
  );
}

function QueueItem({ entry, open, onAct }: { entry: QueueEntry; open: boolean; onAct: (a: PendingAction) => void }) {
  const subject = { type: entry.subject.type, id: entry.subject.id };
  const states = entry.subject.states.map((s) => s.state);
  const reasons = Object.entries(entry.reasons)
    .map(([reason, count]) => `${reasonLabel(reason)} (${formatNumber(count)})`)
    .join(', ');
  return (
    <li className="card admin-item" aria-label={`Reports of ${entry.subject.type} ${entry.subject.summary ?? entry.subject.id}`}>
      <SubjectLine subject={entry.subject} />
      {entry.subject.states.length > 0 && (
        <ul className="admin-states">
          {entry.subject.states.map((s) => (
            <li key={s.state}>
              <span className="badge badge-warn">{s.state}</span> {s.reason} · <TimeAgo iso={s.since} />
            </li>
          ))}
        </ul>
      )}
      <p>
        <strong>
          {formatNumber(entry.reporters)} {entry.reporters === 1 ? 'person' : 'people'} reported it
        </strong>
        : {reasons}
      </p>
      <ul className="admin-reports">
        {entry.reports.map((report) => (
          <li key={report.id}>
            <span className="badge">{reasonLabel(report.reason)}</span> {report.note ?? <span className="muted">no note</span>} ·{' '}
            <span className="muted">
              <TimeAgo iso={report.createdAt} />
            </span>
          </li>
        ))}
      </ul>
      {entry.owner && (
        <details className="admin-owner">
          <summary>
            Owner: account {shortId(entry.owner.accountId)}
            {entry.owner.createdAt && (
              <>
                , joined <TimeAgo iso={entry.owner.createdAt} />
              </>
            )}
            , {earlierActions(entry.owner.earlierActions.length)}
          </summary>
          {entry.owner.earlierActions.length > 0 && (
            <ul>
              {entry.owner.earlierActions.map((action) => (
                <li key={action.id}>
                  {action.action} {action.subject.type}: {action.reason} · <TimeAgo iso={action.createdAt} />
                </li>
              ))}
            </ul>
          )}
        </details>
      )}
      {entry.subject.exists && (
        <div className="admin-actions" role="group" aria-label="Actions">
          {actionsFor(subject.type, states).map((action) => (
            <button key={action} type="button" className="button button-small" onClick={() => onAct({ action, subject })}>
              {actionLabel(action)}
            </button>
          ))}
          {entry.owner && subject.type !== 'account' && (
            <button
              type="button"
              className="button button-small"
              onClick={() => onAct({ action: 'suspend', subject: { type: 'account', id: entry.owner!.accountId } })}
            >
              Suspend the owner
            </button>
          )}
          {open && (
            <button type="button" className="button button-small" onClick={() => onAct({ action: 'dismiss', subject })}>
              Dismiss
            </button>
          )}
        </div>
      )}
    </li>
  );
}

/** The answer of a route this instance may not offer yet: null for its 404, so the page says so instead of failing. */
function Pending() {
  const [asked, setAsked] = useState<PendingAction | null>(null);
  const pending = useQuery({
    queryKey: ['admin', 'pending'],
    queryFn: () => unwrap(api.GET('/v1/admin/pending')),
  });
  return (
    <section aria-labelledby="pending-heading">
      <h2 id="pending-heading">Waiting for approval</h2>
      {pending.isPending ? (
        <Loading query={pending} count={2} label="Loading what waits for approval" />
      ) : pending.isError ? (
        <ErrorState error={pending.error} onRetry={() => void pending.refetch()} />
      ) : pending.data.items.length === 0 ? (
        <EmptyState title="Nothing waits for approval." />
      ) : (
        <ol className="list">
          {pending.data.items.map((item) => (
            <li key={`${item.subject.type}:${item.subject.id}`} className="card admin-item">
              <p className="admin-subject">
                <span className="badge">{item.subject.type}</span> <PendingName item={item} />
              </p>
              <p className="muted">
                {item.owner && item.subject.type !== 'account' && <>Owner {item.owner} · </>}
                {item.since ? (
                  <>
                    waiting since <TimeAgo iso={item.since} />
                  </>
                ) : (
                  'waiting'
                )}{' '}
                · {item.reason}
              </p>
              <div className="admin-actions" role="group" aria-label={`Decide on ${item.name}`}>
                <button type="button" className="button button-small" onClick={() => setAsked({ action: 'approve', subject: item.subject })}>
                  Approve
                </button>
                <button type="button" className="button button-small" onClick={() => setAsked({ action: 'reject', subject: item.subject })}>
                  Reject
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
      <ActionDialog asked={asked} onClose={() => setAsked(null)} />
    </section>
  );
}

const LOG_PAGE = 50;

function AuditLog({ myAccountId }: { myAccountId: string }) {
  const [offset, setOffset] = useState(0);
  const log = useQuery({
    queryKey: ['admin', 'log', offset],
    queryFn: () => unwrap(api.GET('/v1/admin/actions', { params: { query: { limit: LOG_PAGE, offset } } })),
    placeholderData: (previous) => previous,
  });
  return (
    <section aria-labelledby="log-heading">
      <h2 id="log-heading">Audit log</h2>
      <p className="muted">Every action, newest first. Nothing here is ever edited or deleted; undoing an action is a new action.</p>
      {!log.data ? (
        <Loading query={log} count={3} label="Loading the audit log" />
      ) : log.data.data.length === 0 ? (
        <EmptyState title="No actions yet." />
      ) : (
        <>
          <ol className="list admin-log">
            {log.data.data.map((action) => (
              <LogRow key={action.id} action={action} mine={action.moderatorId === myAccountId} />
            ))}
          </ol>
          <div className="list-end">
            {offset > 0 && (
              <button type="button" className="button" onClick={() => setOffset(Math.max(0, offset - LOG_PAGE))}>
                Newer
              </button>
            )}
            {log.data.pagination.hasMore && (
              <button type="button" className="button" onClick={() => setOffset(offset + LOG_PAGE)}>
                Older
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
}

/** A waiting agent links to its page, a waiting account to its profile once it has one. */
function PendingName({ item }: { item: { subject: ModerationSubject; handle: string | null; name: string } }) {
  const link = subjectLink({ ...item.subject, handle: item.handle });
  return <strong>{link ? <Link to={link}>{item.name}</Link> : item.name}</strong>;
}

function LogRow({ action, mine }: { action: ModerationAction; mine: boolean }) {
  const link = subjectLink(action.subject);
  return (
    <li className="card admin-log-row">
      <p>
        <strong>{action.action}</strong> <span className="badge">{action.subject.type}</span>{' '}
        {link ? <Link to={link}>{shortId(action.subject.id)}</Link> : shortId(action.subject.id)} · by{' '}
        {mine ? 'you' : `moderator ${shortId(action.moderatorId)}`} · <TimeAgo iso={action.createdAt} />
      </p>
      <p className="admin-reason">{action.reason}</p>
      {action.reportIds.length > 0 && (
        <p className="muted">
          Resolved {formatNumber(action.reportIds.length)} {action.reportIds.length === 1 ? 'report' : 'reports'}
        </p>
      )}
    </li>
  );
}

function Appeals({ myAccountId }: { myAccountId: string }) {
  const client = useQueryClient();
  const [status, setStatus] = useState<'open' | 'upheld' | 'reversed'>('open');
  const [deciding, setDeciding] = useState<{ appeal: Appeal; decision: 'uphold' | 'reverse' } | null>(null);
  const [reason, setReason] = useState('');
  const appeals = useQuery({
    queryKey: ['admin', 'appeals', status],
    queryFn: () => unwrap(api.GET('/v1/admin/appeals', { params: { query: { status, limit: 50 } } })),
  });
  const decide = useMutation({
    mutationFn: (d: NonNullable<typeof deciding>) =>
      unwrap(api.POST('/v1/admin/appeals/{id}', { params: { path: { id: d.appeal.id } }, body: { decision: d.decision, reason: reason.trim() } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['admin'] });
      close();
    },
  });
  function close() {
    setDeciding(null);
    setReason('');
    decide.reset();
  }
  return (
    <section aria-labelledby="appeals-heading">
      <div className="admin-section-head">
        <h2 id="appeals-heading">Appeals</h2>
        <div className="segmented" role="group" aria-label="Which appeals">
          {(['open', 'upheld', 'reversed'] as const).map((s) => (
            <button key={s} type="button" className="button button-small" aria-pressed={status === s} onClick={() => setStatus(s)}>
              {s.charAt(0).toUpperCase() + s.slice(1)}
            </button>
          ))}
        </div>
      </div>
      {!appeals.data ? (
        <Loading query={appeals} count={2} label="Loading the appeals" />
      ) : appeals.data.data.length === 0 ? (
        <EmptyState title={status === 'open' ? 'No open appeals.' : `No ${status} appeals.`} />
      ) : (
        <ol className="list">
          {appeals.data.data.map((appeal) => {
            const mine = appeal.action?.moderatorId === myAccountId;
            return (
              <li key={appeal.id} className="card admin-item">
                {appeal.action && (
                  <p>
                    Appeal of <strong>{appeal.action.action}</strong> <span className="badge">{appeal.action.subject.type}</span> · reason given:{' '}
                    {appeal.action.reason}
                  </p>
                )}
                <p className="admin-reason">“{appeal.note}”</p>
                <p className="muted">
                  From account {shortId(appeal.appellantId)} · <TimeAgo iso={appeal.createdAt} />
                  {appeal.decisionReason && <> · decided: {appeal.decisionReason}</>}
                </p>
                {appeal.status === 'open' &&
                  (mine ? (
                    <p className="muted">You took this action: another moderator decides its appeal.</p>
                  ) : (
                    <div className="admin-actions" role="group" aria-label="Decide the appeal">
                      <button type="button" className="button button-small" onClick={() => setDeciding({ appeal, decision: 'uphold' })}>
                        Uphold
                      </button>
                      <button type="button" className="button button-small" onClick={() => setDeciding({ appeal, decision: 'reverse' })}>
                        Reverse
                      </button>
                    </div>
                  ))}
              </li>
            );
          })}
        </ol>
      )}
      <FormDialog
        open={deciding !== null}
        title={deciding?.decision === 'reverse' ? 'Reverse the action?' : 'Uphold the action?'}
        submitLabel={deciding?.decision === 'reverse' ? 'Reverse' : 'Uphold'}
        busy={decide.isPending}
        error={decide.error ? decide.error.message : null}
        onSubmit={() => deciding && decide.mutate(deciding)}
        onClose={close}
      >
        <ReasonField value={reason} onChange={setReason} />
      </FormDialog>
    </section>
  );
}

function Roles({ myAccountId }: { myAccountId: string }) {
  const client = useQueryClient();
  const id = useId();
  const [accountId, setAccountId] = useState('');
  const [newRole, setNewRole] = useState<NonNullable<ModerationRole>>('moderator');
  const [removing, setRemoving] = useState<RoleHolder | null>(null);
  const roles = useQuery({ queryKey: ['admin', 'roles'], queryFn: () => unwrap(api.GET('/v1/admin/roles')) });
  const grant = useMutation({
    mutationFn: () => unwrap(api.PUT('/v1/admin/roles/{accountId}', { params: { path: { accountId: accountId.trim() } }, body: { role: newRole } })),
    onSuccess: () => {
      setAccountId('');
      void client.invalidateQueries({ queryKey: ['admin', 'roles'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (holder: RoleHolder) => unwrap(api.DELETE('/v1/admin/roles/{accountId}', { params: { path: { accountId: holder.accountId } } })),
    onSuccess: () => {
      setRemoving(null);
      void client.invalidateQueries({ queryKey: ['admin', 'roles'] });
    },
  });
  return (
    <section aria-labelledby="roles-heading">
      <h2 id="roles-heading">Roles</h2>
      <p className="muted">Moderators act on reports and decide appeals; admins also set the policies and the roles.</p>
      {!roles.data ? (
        <Loading query={roles} count={2} label="Loading the roles" />
      ) : (
        <ul className="list">
          {roles.data.data.map((holder) => (
            <li key={holder.accountId} className="card admin-role">
              <span>
                <strong>{holder.email ?? shortId(holder.accountId)}</strong> <span className="badge">{holder.role}</span>
                {holder.accountId === myAccountId && <span className="muted"> (you)</span>}
                <span className="muted">
                  {' '}
                  · since <TimeAgo iso={holder.grantedAt} />
                </span>
              </span>
              <button type="button" className="button button-small button-danger" onClick={() => setRemoving(holder)}>
                Remove role
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="inline-form admin-grant"
        onSubmit={(event) => {
          event.preventDefault();
          grant.mutate();
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-account`}>Account id</label>
          <input id={`${id}-account`} required value={accountId} onChange={(event) => setAccountId(event.target.value)} aria-describedby={`${id}-hint`} />
        </div>
        <div className="field admin-grant-role">
          <label htmlFor={`${id}-role`}>Role</label>
          <select id={`${id}-role`} value={newRole} onChange={(event) => setNewRole(event.target.value as NonNullable<ModerationRole>)}>
            <option value="moderator">moderator</option>
            <option value="admin">admin</option>
          </select>
        </div>
        <button type="submit" className="button button-primary" disabled={grant.isPending || accountId.trim() === ''}>
          Give the role
        </button>
      </form>
      <p className="field-hint" id={`${id}-hint`}>
        The person finds their account id in their settings.
      </p>
      {grant.error && (
        <p className="form-error" role="alert">
          {grant.error.message}
        </p>
      )}
      <ConfirmDialog
        subject={removing}
        title={`Remove the ${removing?.role ?? ''} role?`}
        confirmLabel="Remove role"
        busy={revoke.isPending}
        error={revoke.error ? revoke.error.message : null}
        onConfirm={() => removing && revoke.mutate(removing)}
        onClose={() => {
          setRemoving(null);
          revoke.reset();
        }}
      >
        <p>{removing?.email ?? removing?.accountId} loses it from their next request.</p>
      </ConfirmDialog>
    </section>
  );
}

const listingLabels: Record<Policies['agentListing'], string> = { open: 'Open: listed at once', approval: 'After a moderator approves' };
const signUpLabels: Record<Policies['signUp'], string> = { open: 'Open to anyone', approval: 'After a moderator approves', closed: 'Closed' };

function PoliciesSection({ role }: { role: NonNullable<ModerationRole> }) {
  const policies = useQuery({
    queryKey: ['admin', 'policies'],
    queryFn: async () => (await unwrap(api.GET('/v1/admin/policies'))).data,
  });
  return (
    <section aria-labelledby="policies-heading">
      <h2 id="policies-heading">Policies</h2>
      {policies.isPending ? (
        <Loading query={policies} count={1} label="Loading the policies" />
      ) : policies.isError ? (
        <ErrorState error={policies.error} onRetry={() => void policies.refetch()} />
      ) : role === 'admin' ? (
        <PoliciesForm current={policies.data} />
      ) : (
        <>
          <p className="muted">Only admins change these.</p>
          <dl className="facts card">
            <dt>Agent listing</dt>
            <dd>{listingLabels[policies.data.agentListing]}</dd>
            <dt>Sign-up</dt>
            <dd>{signUpLabels[policies.data.signUp]}</dd>
            <dt>New accounts</dt>
            <dd>{Math.round(policies.data.newAccountFraction * 100)}% of the ordinary limits in their first 24 hours</dd>
            <dt>Automatic hold</dt>
            <dd>{policies.data.autoHoldReports > 0 ? `after ${formatNumber(policies.data.autoHoldReports)} reports` : 'off'}</dd>
          </dl>
        </>
      )}
    </section>
  );
}

function PoliciesForm({ current }: { current: Policies }) {
  const client = useQueryClient();
  const id = useId();
  const [draft, setDraft] = useState(current);
  const [saved, setSaved] = useState(false);
  useEffect(() => setDraft(current), [current]);
  const save = useMutation({
    mutationFn: () => unwrap(api.PUT('/v1/admin/policies', { body: draft })),
    onSuccess: () => {
      setSaved(true);
      void client.invalidateQueries({ queryKey: ['admin', 'policies'] });
    },
  });
  const refusal = save.error instanceof ApiError ? save.error : null;
  const change = (next: Partial<Policies>) => {
    setSaved(false);
    save.reset();
    setDraft({ ...draft, ...next });
  };
  return (
    <form
      className="form-section admin-policies"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <div className="field">
        <label htmlFor={`${id}-listing`}>Agent listing</label>
        <select id={`${id}-listing`} value={draft.agentListing} onChange={(e) => change({ agentListing: e.target.value as Policies['agentListing'] })}>
          {Object.entries(listingLabels).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <p className="field-hint">With approval, a new agent, or one whose name, description or endpoint changed, waits for a moderator.</p>
      </div>
      <div className="field">
        <label htmlFor={`${id}-signup`}>Sign-up</label>
        <select id={`${id}-signup`} value={draft.signUp} onChange={(e) => change({ signUp: e.target.value as Policies['signUp'] })}>
          {Object.entries(signUpLabels).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-fraction`}>New accounts&apos; share of the ordinary limits (first 24 hours)</label>
        <input
          id={`${id}-fraction`}
          type="number"
          min={0}
          max={1}
          step={0.05}
          required
          value={draft.newAccountFraction}
          onChange={(e) => change({ newAccountFraction: Number(e.target.value) })}
        />
        {refusal?.forField('newAccountFraction') && <p className="field-error">{refusal.forField('newAccountFraction')}</p>}
      </div>
      <div className="field">
        <label htmlFor={`${id}-hold`}>Hide pending review after this many reports (0: never)</label>
        <input
          id={`${id}-hold`}
          type="number"
          min={0}
          step={1}
          required
          value={draft.autoHoldReports}
          onChange={(e) => change({ autoHoldReports: Number(e.target.value) })}
        />
        {refusal?.forField('autoHoldReports') && <p className="field-error">{refusal.forField('autoHoldReports')}</p>}
      </div>
      {save.error && (
        <p className="form-error" role="alert">
          {save.error.message}
        </p>
      )}
      <div className="admin-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save policies
        </button>
        {saved && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}
