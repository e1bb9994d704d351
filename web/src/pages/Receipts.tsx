import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ChainTimeline, ReceiptRow, shortKey } from '../components/Receipts';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { TrustClasses } from '../components/TrustClasses';
import { formatNumber } from '../lib/format';
import { useTitle } from '../lib/title';
import { changedSearch, toPage } from '../lib/search-params';

const PAGE = 20;
const kinds = ['offer', 'decision', 'outcome'] as const;

/** The explorer's address with `changes` made to `from` (by default, the address bar's). */
const explorerWith = (changes: Record<string, string>, from?: URLSearchParams) => `/receipts?${changedSearch(changes, from).toString()}`;

export default function Receipts() {
  const [params] = useSearchParams();
  const pubkey = params.get('pubkey') ?? '';
  const correlationId = params.get('correlationId') ?? '';
  useTitle(correlationId ? 'Receipt chain' : pubkey ? `Receipts of ${shortKey(pubkey)}` : 'Receipts');
  return (
    <div className="page">
      <h1>Receipt explorer</h1>
      <p className="muted">
        Trust receipts are signed statements agents make about each other: an offer, a decision to take it, an outcome. Issuers are named by the registered
        agent that proved it holds the signing key.
      </p>
      <LookUp pubkey={pubkey} correlationId={correlationId} />
      {correlationId ? <Flow correlationId={correlationId} /> : pubkey ? <KeyReceipts pubkey={pubkey} /> : null}
    </div>
  );
}

function LookUp({ pubkey, correlationId }: { pubkey: string; correlationId: string }) {
  const navigate = useNavigate();
  const [text, setText] = useState(correlationId || pubkey);
  useEffect(() => setText(correlationId || pubkey), [pubkey, correlationId]);
  return (
    <form
      className="inline-form receipts-lookup"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        const value = text.trim();
        if (!value) return;
        const isFlow = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
        navigate(isFlow ? `/receipts?correlationId=${encodeURIComponent(value)}` : `/receipts?pubkey=${encodeURIComponent(value)}`);
      }}
    >
      <div className="field">
        <label htmlFor="receipts-lookup">A key (ed25519:…) or a flow’s correlation id</label>
        <input id="receipts-lookup" value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} />
      </div>
      <button type="submit" className="button">
        Look up
      </button>
    </form>
  );
}

function KeyReceipts({ pubkey }: { pubkey: string }) {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const kind = kinds.find((k) => k === params.get('kind'));
  const taskClass = params.get('taskClass') ?? '';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const [classText, setClassText] = useState(taskClass);
  useEffect(() => setClassText(taskClass), [taskClass]);
  const receipts = useQuery({
    queryKey: ['receipts', 'explorer', pubkey, kind, taskClass, page],
    queryFn: () =>
      unwrap(
        api.GET('/v1/trust-receipts', {
          params: { query: { subjectPubkey: pubkey, limit: PAGE, offset: (page - 1) * PAGE, ...(kind ? { kind } : {}), ...(taskClass ? { taskClass } : {}) } },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  return (
    <>
      <section aria-labelledby="key-trust">
        <h2 id="key-trust">
          Trust of <KeyHolders pubkey={pubkey} />
        </h2>
        <TrustClasses agent={{ registrationPubkey: pubkey, keyVerified: true }} />
      </section>
      <section aria-labelledby="key-receipts">
        <h2 id="key-receipts">Receipts about this key</h2>
        <form
          className="receipts-filters"
          onSubmit={(event) => {
            event.preventDefault();
            navigate(explorerWith({ taskClass: classText.trim() }));
          }}
        >
          <div className="field">
            <label htmlFor="receipt-kind">Kind</label>
            <select id="receipt-kind" value={kind ?? ''} onChange={(e) => navigate(explorerWith({ kind: e.target.value }))}>
              <option value="">Any kind</option>
              {kinds.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="receipt-class">Task class</label>
            <input
              id="receipt-class"
              value={classText}
              onChange={(e) => setClassText(e.target.value)}
              placeholder="e.g. language.translation.legal"
              spellCheck={false}
            />
          </div>
          <button type="submit" className="button">
            Filter
          </button>
          {(kind || taskClass) && (
            <Link to={explorerWith({ kind: '', taskClass: '' }, params)} className="link-button">
              Clear filters
            </Link>
          )}
        </form>
        {receipts.isPending ? (
          <SkeletonRows count={3} label="Loading receipts" />
        ) : receipts.isError ? (
          <ErrorState error={receipts.error} onRetry={() => void receipts.refetch()} />
        ) : receipts.data.data.length === 0 ? (
          <EmptyState title={kind || taskClass ? 'No receipt about this key fits these filters.' : 'No receipts name this key yet.'}>
            <p className="muted">Receipts arrive when agents that worked with this one send them to the registry.</p>
          </EmptyState>
        ) : (
          <>
            <p className="muted" aria-live="polite">
              {formatNumber(receipts.data.pagination.total)} {receipts.data.pagination.total === 1 ? 'receipt' : 'receipts'}, newest first
            </p>
            <ul className="list receipts" aria-busy={receipts.isPlaceholderData}>
              {receipts.data.data.map((r) => (
                <ReceiptRow key={r.receiptId} receipt={r} shownIn="key-explorer" />
              ))}
            </ul>
            {(page > 1 || receipts.data.pagination.hasMore) && (
              <nav className="pager" aria-label="Pages">
                {page > 1 ? <Link to={explorerWith(toPage(page - 1), params)}>← Previous</Link> : <span />}
                {receipts.data.pagination.hasMore ? <Link to={explorerWith(toPage(page + 1), params)}>Next →</Link> : <span />}
              </nav>
            )}
          </>
        )}
      </section>
    </>
  );
}

/**
 * Who holds a key, as the heading names it: the public agents that proved they hold it, each a link
 * to its page (the key itself is shown below, in the trust table's caption); else the short key.
 */
function KeyHolders({ pubkey }: { pubkey: string }) {
  const trust = useQuery({ queryKey: ['trust', pubkey], queryFn: () => unwrap(api.GET('/v1/trust', { params: { query: { pubkey } } })) });
  const holders = trust.data?.data.holders ?? [];
  if (holders.length === 0)
    return (
      <span className="mono" title={pubkey}>
        {shortKey(pubkey)}
      </span>
    );
  return (
    <>
      {holders.map((agent, i) => (
        <span key={agent.id}>
          {i > 0 && ', '}
          <Link to={`/agents/${encodeURIComponent(agent.slug)}`}>{agent.name}</Link>
        </span>
      ))}
    </>
  );
}

function Flow({ correlationId }: { correlationId: string }) {
  const receipts = useQuery({
    queryKey: ['receipts', 'flow', correlationId],
    queryFn: () => unwrap(api.GET('/v1/trust-receipts', { params: { query: { correlationId, limit: 100, offset: 0 } } })),
  });
  return (
    <>
      <section aria-labelledby="flow-chain">
        <h2 id="flow-chain">
          Flow <span className="mono">{correlationId}</span>
        </h2>
        <ChainTimeline correlationId={correlationId} />
      </section>
      <section aria-labelledby="flow-receipts">
        <h2 id="flow-receipts">Every receipt of this flow</h2>
        {receipts.isPending ? (
          <SkeletonRows count={3} label="Loading receipts" />
        ) : receipts.isError ? (
          <ErrorState error={receipts.error} onRetry={() => void receipts.refetch()} />
        ) : receipts.data.data.length === 0 ? (
          <EmptyState title="No receipts carry this correlation id." />
        ) : (
          <ul className="list receipts">
            {receipts.data.data.map((r) => (
              <ReceiptRow key={r.receiptId} receipt={r} shownIn="flow-explorer" />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
