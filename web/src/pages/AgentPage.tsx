import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { AgentDetail } from '../api/types';
import { AvailabilityDot, Chips, HealthStrip, IdentityBadge, identityText, Price, Trust, Unclaimed } from '../components/AgentBits';
import { Markdown } from '../components/Markdown';
import { ReportButton } from '../components/ReportButton';
import { explorerOfKey, ReceiptRow } from '../components/Receipts';
import { TrustClasses } from '../components/TrustClasses';
import { TrustExplanation } from '../components/TrustExplanation';
import { ErrorState, Loading, LoadingOrMissing } from '../components/States';
import { exactTime, relativeTime, safeHttpUrl } from '../lib/format';
import { fieldLabel, optionLabel, parseInputSchema } from '../lib/input-schema';
import { useAccount } from '../session';

/** Why a page only its owner and the moderators can open is not in search. */
const unlistedNotice = {
  pending: 'Not listed yet: this agent waits for a moderator’s approval, and only its owner and the moderators see this page.',
  rejected: 'Not listed: the moderators rejected this agent, and only its owner and the moderators see this page.',
  delisted: 'Not listed: the moderators delisted this agent, and only its owner and the moderators see this page.',
} as const;

export default function AgentPage() {
  const { slug = '' } = useParams();
  // The search that led here (`?q=`), carried on to the task form, which sends it with the task.
  const searchWords = (useSearchParams()[0].get('q') ?? '').trim();
  const account = useAccount();
  const agent = useQuery({ queryKey: ['agent', slug], queryFn: () => unwrap(api.GET('/v1/discover/{slug}', { params: { path: { slug } } })) });
  useEffect(() => {
    if (agent.data) document.title = `${agent.data.data.name} · Agentry`;
  }, [agent.data]);

  if (agent.isPending || agent.isError) {
    return (
      <LoadingOrMissing
        query={agent}
        loadingLabel="Loading the agent"
        missingTitle="No agent here."
        missingHint=<>
          It may be private or removed. <Link to="/agents">Find another agent</Link>.
        </>
      />
    );
  }
  const a = agent.data.data;
  const signedIn = Boolean(account.data);
  const docs = safeHttpUrl(a.docsUrl);
  return (
    <div className="page">
      <div className="agent-header">
        <div>
          <h1>{a.name}</h1>
          <p className="muted">{a.description}</p>
          <div className="agent-card-meta">
            <AvailabilityDot availability={a.availability} />
            <Price agent={a} />
            <Trust trust={a.trust} receipts={a.trustReceipts} />
            {a.status !== 'provisional' && <IdentityBadge agent={a} />}
          </div>
        </div>
        <div className="agent-header-actions">
          <Link
            className="button button-primary"
            to={`/agents/${encodeURIComponent(a.slug)}/task${searchWords ? `?${new URLSearchParams({ q: searchWords }).toString()}` : ''}`}
          >
            Give this agent a task
          </Link>
          {signedIn && <ReportButton subject={{ type: 'agent', id: a.id }} what="agent" />}
        </div>
      </div>
      {a.listing.state !== 'listed' && (
        <p className="notice" role="status">
          {unlistedNotice[a.listing.state]}
          {a.listing.state !== 'pending' && a.listing.reason && ` Reason: ${a.listing.reason}`}
        </p>
      )}
      <div className="agent-layout agent-facts-first">
        <div>
          {a.status === 'provisional' && (
            <div className="card unclaimed-notice">
              <Unclaimed />
              <p>Nobody has claimed this agent yet: it was registered by its key alone, and no account answers for it.</p>
              <p>
                <Link to={`/claim/${encodeURIComponent(a.id)}`}>Is this yours? Claim it</Link>
              </p>
            </div>
          )}
          {a.longDescription && <Markdown text={a.longDescription} />}
          <TrustSection agent={a} />
        </div>
        <aside className="card" aria-label="About this agent">
          <dl className="facts">
            <dt>Version</dt>
            <dd>{a.version}</dd>
            <dt>Protocols</dt>
            <dd>{a.protocols.length ? a.protocols.map((p) => p.toUpperCase()).join(', ') : '—'}</dd>
            <dt>Categories</dt>
            <dd>{a.categories.length ? a.categories.join(', ') : '—'}</dd>
            <dt>Docs</dt>
            <dd>
              {docs ? (
                <a href={docs} target="_blank" rel="noopener noreferrer nofollow">
                  {a.docsUrl}
                </a>
              ) : (
                (a.docsUrl ?? '—')
              )}
            </dd>
            <dt>Status</dt>
            <dd>{a.status}</dd>
            <dt>Identity</dt>
            <dd data-testid="agent-identity">{identityText(a)}</dd>
            {a.cardSignature && (
              <>
                <dt>Agent card</dt>
                <dd data-testid="agent-card-signature" title={`Key ${a.cardSignature.kid} from ${a.cardSignature.jku}`}>
                  Signed; signature verified with key {a.cardSignature.kid} from {hostOf(a.cardSignature.jku)}
                </dd>
              </>
            )}
            <dt>Last seen</dt>
            <dd>
              {a.lastSeenAt ? (
                <time dateTime={a.lastSeenAt} title={exactTime(a.lastSeenAt)}>
                  {relativeTime(a.lastSeenAt)}
                </time>
              ) : (
                'never'
              )}
            </dd>
            <dt>Health</dt>
            <dd>
              <HealthStrip health={a.health} />
            </dd>
          </dl>
          <h3>Capabilities</h3>
          <Chips items={a.capabilities} label="Capabilities" max={50} />
          <TaskInputs inputSchema={a.inputSchema} />
          {a.examples.length > 0 && (
            <>
              <h3>Requests it is for</h3>
              <ul className="agent-examples">
                {a.examples.map((example) => (
                  <li key={example}>“{example}”</li>
                ))}
              </ul>
            </>
          )}
        </aside>
      </div>
    </div>
  );
}

/** A key set URL's host: where the card's signing key was published. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** What the task form will ask for, by the names the form uses, so people know before they start. */
function TaskInputs({ inputSchema }: { inputSchema: string | null | undefined }) {
  const schema = parseInputSchema(inputSchema);
  if (!schema) return null;
  return (
    <>
      <h3>A task for it takes</h3>
      <ul className="task-inputs">
        {Object.entries(schema).map(([name, definition]) => (
          <li key={name}>
            <span dir="auto">{fieldLabel(name, definition)}</span>
            {definition.required && <span className="muted"> (required)</span>}
            {definition.enum && (
              <span className="muted" dir="auto">
                : {definition.enum.map((option) => optionLabel(definition, option)).join(', ')}
              </span>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

function TrustSection({ agent }: { agent: AgentDetail }) {
  const pubkey = agent.keyVerified ? agent.registrationPubkey : null;
  const receipts = useQuery({
    queryKey: ['receipts', pubkey, agent.id],
    enabled: pubkey !== null,
    // About this agent, not every agent that shares its key.
    queryFn: () => unwrap(api.GET('/v1/trust-receipts', { params: { query: { subjectPubkey: pubkey!, subjectAgentId: agent.id, limit: 10, offset: 0 } } })),
  });
  return (
    <section aria-labelledby="trust-heading">
      <h2 id="trust-heading">Trust by task class</h2>
      <TrustClasses agent={agent} />
      {pubkey !== null && (
        <>
          <TrustExplanation pubkey={pubkey} />
          <div className="section-head">
            <h2>Recent receipts</h2>
            <Link to={explorerOfKey(pubkey)}>All receipts in the explorer</Link>
          </div>
          {receipts.isPending ? (
            <Loading query={receipts} count={2} label="Loading receipts" />
          ) : receipts.isError ? (
            <ErrorState error={receipts.error} onRetry={() => void receipts.refetch()} />
          ) : receipts.data.data.length === 0 ? (
            <p className="muted">No receipts name this agent yet.</p>
          ) : (
            <ul className="list receipts">
              {receipts.data.data.map((r) => (
                <ReceiptRow key={r.receiptId} receipt={r} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
