import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import type { TrustExplanation as Explanation } from '../api/types';
import { formatNumber } from '../lib/format';
import { explorerOfFlow, explorerOfKey, shortKey } from './Receipts';
import { ErrorState, Loading } from './States';

type ExplainedClass = Explanation['classes'][number];
type Party = ExplainedClass['counted'][number];

/** A weight or value as people read it: at most two decimals, no trailing zeros. */
const amount = (n: number) => formatNumber(Math.round(n * 100) / 100);
/** An outcome's value (success 1, partial 0.5, failure or rolled back 0) in words. */
const valueWord = (value: number) => (value >= 1 ? 'success' : value <= 0 ? 'failure' : 'partly done');
const receiptsWord = (n: number) => (n === 1 ? '1 receipt' : `${formatNumber(n)} receipts`);

const KeyLink = ({ pubkey }: { pubkey: string }) => (
  <Link to={explorerOfKey(pubkey)} className="mono" title={pubkey}>
    {shortKey(pubkey)}
  </Link>
);
const TaskLink = ({ id }: { id: string }) => (
  <Link to={explorerOfFlow(id)} className="mono" title={id}>
    {id.slice(0, 8)}
  </Link>
);

/**
 * "Why this score": per task class, the parties whose receipts counted with their weights (each
 * task-bound receipt, and the other outcomes per issuer key), those that did not count and why, and
 * the requester receipts that counted without being bound to their task. Loaded when opened.
 */
export function TrustExplanation({ pubkey }: { pubkey: string }) {
  const [open, setOpen] = useState(false);
  const explained = useQuery({
    queryKey: ['trust', pubkey, 'explain'],
    enabled: open,
    queryFn: () => unwrap(api.GET('/v1/trust', { params: { query: { pubkey, explain: true } } })),
  });
  const explanation = explained.data?.data.explanation;
  return (
    <details className="trust-explanation" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Why this score</summary>
      {!open ? null : explained.isPending ? (
        <Loading query={explained} count={1} label="Loading the explanation" />
      ) : explained.isError ? (
        <ErrorState error={explained.error} onRetry={() => void explained.refetch()} />
      ) : !explanation || explanation.classes.length === 0 ? (
        <p className="muted">No outcome receipt names this key yet, so every class has the starting score, {explanation?.prior.score.toFixed(2) ?? '0.50'}.</p>
      ) : (
        <>
          <p className="muted">
            Each class starts at {explanation.prior.score.toFixed(2)}, weighing as much as {amount(explanation.prior.weight)} receipts; the receipts that count
            move it from there. All agents and signing keys of one account are one party, and an unclaimed key is a party of its own; each party’s weight is
            capped. A receipt from the requester of a task this registry routed, bound to that task, weighs most. Receipts whose signature does not verify weigh
            nothing and are not listed here.
          </p>
          {explanation.classes.map((entry) => (
            <ClassExplanation key={entry.taskClass} entry={entry} />
          ))}
        </>
      )}
    </details>
  );
}

function ClassExplanation({ entry }: { entry: ExplainedClass }) {
  return (
    <section className="trust-class" aria-label={`Why ${entry.taskClass} scores ${entry.score.toFixed(2)}`}>
      <h3>
        <span className="mono">{entry.taskClass}</span>: {entry.score.toFixed(2)}
      </h3>
      <p className="muted">{entry.counted.length === 0 ? 'Nothing counted in this class.' : `Evidence weighing ${amount(entry.weight)} in all, from:`}</p>
      {entry.counted.length > 0 && (
        <ul className="trust-parties">
          {entry.counted.map((party) => (
            <PartyItem key={party.party.kind === 'owner' ? party.party.id : party.party.pubkey} party={party} />
          ))}
        </ul>
      )}
      {entry.notBound.length > 0 && (
        <>
          <h4>Counted, but not bound to their task</h4>
          <ul>
            {entry.notBound.map((item) => (
              <li key={item.receiptId}>
                A receipt about task <TaskLink id={item.correlationId} /> from key <KeyLink pubkey={item.issuerPubkey} />: {item.reason}.
              </li>
            ))}
          </ul>
        </>
      )}
      {entry.notCounted.length > 0 && (
        <>
          <h4>Did not count</h4>
          <ul>
            {entry.notCounted.map((item) => (
              <li key={`${item.issuerPubkey} ${item.issuerAgent} ${item.reason}`}>
                {receiptsWord(item.receipts)} from key <KeyLink pubkey={item.issuerPubkey} />: {item.reason}.
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** An owner party by the names it may be shown under: its public agents (linked) and the person who signed; else "A private agent". */
function PartyNames({ names }: { names: Party['names'] }) {
  if (names.length === 0) return <>A private agent</>;
  return (
    <>
      {names.map((name, i) => (
        <span key={name.kind === 'agent' ? name.id : name.username}>
          {i > 0 && ', '}
          {name.kind === 'agent' ? (
            <Link to={`/agents/${encodeURIComponent(name.slug)}`}>{name.name}</Link>
          ) : (
            <Link to={`/@${name.username}`}>@{name.username}</Link>
          )}
        </span>
      ))}
    </>
  );
}

function PartyItem({ party }: { party: Party }) {
  return (
    <li>
      <p>
        {party.party.kind === 'owner' ? (
          <PartyNames names={party.names} />
        ) : (
          <>
            An unclaimed key (<KeyLink pubkey={party.party.pubkey} />)
          </>
        )}
        : weighs <strong>{amount(party.weight)}</strong>, mean value {amount(party.value)}
      </p>
      <ul>
        {party.taskBound.map((receipt) => (
          <li key={receipt.receiptId}>
            Bound to task <TaskLink id={receipt.correlationId} />: {valueWord(receipt.value)}, weight {amount(receipt.weight)}, signed by key{' '}
            <KeyLink pubkey={receipt.issuerPubkey} />
          </li>
        ))}
        {party.unbound.map((item) => (
          <li key={`${item.issuerPubkey} ${item.issuerAgent}`}>
            {receiptsWord(item.receipts)} not bound to a task, from key <KeyLink pubkey={item.issuerPubkey} />: mean value {amount(item.value)}, weight{' '}
            {amount(item.weight)} each
          </li>
        ))}
      </ul>
    </li>
  );
}
