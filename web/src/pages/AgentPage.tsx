import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { AgentDetail, StoredReceipt } from '../api/types';
import { AvailabilityDot, Chips, Price, Trust } from '../components/AgentBits';
import { Markdown } from '../components/Markdown';
import { TrustClasses } from '../components/TrustClasses';
import { ErrorState, LoadingOrMissing, SkeletonRows } from '../components/States';
import { exactTime, relativeTime, safeHttpUrl } from '../lib/format';

export default function AgentPage() {
  const { slug = '' } = useParams();
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
          </div>
        </div>
        <Link className="button button-primary" to={`/agents/${encodeURIComponent(a.slug)}/task`}>
          Give this agent a task
        </Link>
      </div>
      <div className="agent-layout">
        <div>
          {a.longDescription ? <Markdown text={a.longDescription} /> : <p className="muted">The owner has not written more about this agent.</p>}
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
          </dl>
          <h3>Capabilities</h3>
          <Chips items={a.capabilities} label="Capabilities" max={50} />
        </aside>
      </div>
    </div>
  );
}

function TrustSection({ agent }: { agent: AgentDetail }) {
  const pubkey = agent.keyVerified ? agent.registrationPubkey : null;
  const receipts = useQuery({
    queryKey: ['receipts', pubkey],
    enabled: pubkey !== null,
    queryFn: () => unwrap(api.GET('/v1/trust-receipts', { params: { query: { subjectPubkey: pubkey!, limit: 10, offset: 0 } } })),
  });
  return (
    <section aria-labelledby="trust-heading">
      <h2 id="trust-heading">Trust by task class</h2>
      <TrustClasses pubkey={pubkey} />
      {pubkey !== null && (
        <>
          <h2>Recent receipts</h2>
          {receipts.isPending ? (
            <SkeletonRows count={2} label="Loading receipts" />
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

const Verified = ({ verified }: { verified: boolean }) =>
  verified ? <span className="badge badge-ok">signature verified</span> : <span className="badge badge-bad">signature not verified</span>;

function ReceiptRow({ receipt }: { receipt: StoredReceipt }) {
  const [open, setOpen] = useState(false);
  const chain = useQuery({
    queryKey: ['chain', receipt.correlationId],
    enabled: open,
    queryFn: () => unwrap(api.GET('/v1/trust-receipts/chain/{correlationId}', { params: { path: { correlationId: receipt.correlationId } } })),
  });
  const outcome = typeof receipt.payload.outcome === 'string' ? receipt.payload.outcome : null;
  return (
    <li className="card receipt">
      <div className="agent-card-meta">
        <strong>{receipt.kind}</strong>
        {outcome && <span>{outcome}</span>}
        <span className="mono">{receipt.taskClass}</span>
        <span>
          from <span className="mono">{receipt.issuer.agent}</span>
          {!receipt.issuerRegistered && ' (not a registered agent)'}
        </span>
        <Verified verified={receipt.signatureVerified} />
        <time dateTime={receipt.issuedAt} title={exactTime(receipt.issuedAt)}>
          {relativeTime(receipt.issuedAt)}
        </time>
      </div>
      <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Hide the chain' : 'Show the chain'}
      </button>
      {open &&
        (chain.isPending ? (
          <p className="muted receipt-chain">Loading the chain…</p>
        ) : chain.isError ? (
          <div className="receipt-chain">
            <ErrorState error={chain.error} onRetry={() => void chain.refetch()} />
          </div>
        ) : (
          <table className="data receipt-chain">
            <caption className="visually-hidden">Chain of flow {receipt.correlationId}</caption>
            <tbody>
              {(['offer', 'decision', 'outcome'] as const).map((kind) => {
                const step = chain.data.data[kind];
                return (
                  <tr key={kind}>
                    <th scope="row">{kind}</th>
                    <td>{step ? <span className="mono">{step.issuer.agent}</span> : <span className="muted">missing</span>}</td>
                    <td>{step ? <Verified verified={step.signatureVerified} /> : null}</td>
                  </tr>
                );
              })}
              <tr>
                <th scope="row">complete</th>
                <td colSpan={2}>{chain.data.data.complete ? 'yes' : 'no'}</td>
              </tr>
            </tbody>
          </table>
        ))}
    </li>
  );
}
