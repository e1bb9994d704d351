import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import type { StoredReceipt } from '../api/types';
import { exactTime, relativeTime } from '../lib/format';
import { ErrorState } from './States';

/** A key as people can tell keys apart: its start and end. */
export function shortKey(pubkey: string): string {
  return pubkey.length > 24 ? `${pubkey.slice(0, 16)}…${pubkey.slice(-6)}` : pubkey;
}

export const explorerOfKey = (pubkey: string) => `/receipts?pubkey=${encodeURIComponent(pubkey)}`;
export const explorerOfFlow = (correlationId: string) => `/receipts?correlationId=${encodeURIComponent(correlationId)}`;

/**
 * Who issued a receipt, found by its key: the public agent that proved it holds the key, else the
 * short key. What the signer wrote in `issuer.agent` is never shown as a name: anyone can write anything.
 */
export function Issuer({ receipt }: { receipt: StoredReceipt }) {
  const holder = receipt.issuerKeyHolder;
  if (holder) return <Link to={`/agents/${encodeURIComponent(holder.slug)}`}>{holder.name}</Link>;
  return (
    <Link to={explorerOfKey(receipt.issuer.pubkey)} className="mono" title={`${receipt.issuer.pubkey}: no registered agent has proven this key`}>
      {shortKey(receipt.issuer.pubkey)}
    </Link>
  );
}

export const Verified = ({ verified }: { verified: boolean }) =>
  verified ? <span className="badge badge-ok">signature verified</span> : <span className="badge badge-bad">signature not verified</span>;

const outcomeOf = (receipt: StoredReceipt) => (typeof receipt.payload.outcome === 'string' ? receipt.payload.outcome : null);

/**
 * A receipt in a list. Where the list is decides its link to the receipt's flow: from elsewhere the
 * explorer opens on it; the explorer's list of a key opens the flow's own view; the flow's own view
 * needs no link to itself.
 */
export function ReceiptRow({ receipt, shownIn = 'elsewhere' }: { receipt: StoredReceipt; shownIn?: 'elsewhere' | 'key-explorer' | 'flow-explorer' }) {
  const [open, setOpen] = useState(false);
  const outcome = outcomeOf(receipt);
  return (
    <li className="card receipt">
      <div className="agent-card-meta">
        <strong>{receipt.kind}</strong>
        {outcome && <span>{outcome}</span>}
        <span className="mono">{receipt.taskClass}</span>
        <span>
          from <Issuer receipt={receipt} />
        </span>
        <Verified verified={receipt.signatureVerified} />
        <time dateTime={receipt.issuedAt} title={exactTime(receipt.issuedAt)}>
          {relativeTime(receipt.issuedAt)}
        </time>
      </div>
      <div className="receipt-actions">
        <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide the chain' : 'Show the chain'}
        </button>
        {shownIn !== 'flow-explorer' && (
          <Link to={explorerOfFlow(receipt.correlationId)}>{shownIn === 'key-explorer' ? 'Open this flow' : 'Open in the receipt explorer'}</Link>
        )}
      </div>
      {open && <ChainTable correlationId={receipt.correlationId} />}
    </li>
  );
}

export function useChain(correlationId: string) {
  return useQuery({
    queryKey: ['chain', correlationId],
    queryFn: () => unwrap(api.GET('/v1/trust-receipts/chain/{correlationId}', { params: { path: { correlationId } } })),
  });
}

const steps = ['offer', 'decision', 'outcome'] as const;

function ChainTable({ correlationId }: { correlationId: string }) {
  const chain = useChain(correlationId);
  if (chain.isPending) return <p className="muted receipt-chain">Loading the chain…</p>;
  if (chain.isError)
    return (
      <div className="receipt-chain">
        <ErrorState error={chain.error} onRetry={() => void chain.refetch()} />
      </div>
    );
  return (
    <table className="data receipt-chain">
      <caption className="visually-hidden">Chain of flow {correlationId}</caption>
      <tbody>
        {steps.map((kind) => {
          const step = chain.data.data[kind];
          return (
            <tr key={kind}>
              <th scope="row">{kind}</th>
              <td>{step ? <Issuer receipt={step} /> : <span className="muted">missing</span>}</td>
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
  );
}

/** A flow's offer, decision and outcome as a timeline, each step with its issuer, verification and time. */
export function ChainTimeline({ correlationId }: { correlationId: string }) {
  const chain = useChain(correlationId);
  if (chain.isPending) return <p className="muted">Loading the chain…</p>;
  if (chain.isError) return <ErrorState error={chain.error} onRetry={() => void chain.refetch()} />;
  const { complete } = chain.data.data;
  return (
    <>
      <p>
        <span className={`badge ${complete ? 'badge-ok' : ''}`}>{complete ? 'complete' : 'not complete'}</span>{' '}
        <span className="muted">{complete ? 'Offer, decision and outcome are all here and verified.' : 'Not every step has a verified receipt.'}</span>
      </p>
      <ol className="timeline" aria-label="Steps of the flow">
        {steps.map((kind) => {
          const step = chain.data.data[kind];
          const outcome = step ? outcomeOf(step) : null;
          return (
            <li key={kind} className={step ? 'timeline-step' : 'timeline-step timeline-missing'}>
              <strong>{kind}</strong>
              {step ? (
                <div className="agent-card-meta">
                  <span>
                    by <Issuer receipt={step} />
                  </span>
                  {outcome && <span>{outcome}</span>}
                  <span className="mono">{step.taskClass}</span>
                  <Verified verified={step.signatureVerified} />
                  <time dateTime={step.issuedAt} title={exactTime(step.issuedAt)}>
                    {exactTime(step.issuedAt)}
                  </time>
                </div>
              ) : (
                <p className="muted">No verified {kind} receipt.</p>
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}
