import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { formatNumber } from '../lib/format';
import { ErrorState, Loading } from './States';

/**
 * Trust per task class of an agent's registration key, naming the key it belongs to. Only once the
 * agent has proven it holds the key do receipts count for it.
 */
export function TrustClasses({ agent }: { agent: { registrationPubkey: string | null; keyVerified: boolean } }) {
  const pubkey = agent.keyVerified ? agent.registrationPubkey : null;
  const trust = useQuery({
    queryKey: ['trust', pubkey],
    enabled: pubkey !== null,
    queryFn: () => unwrap(api.GET('/v1/trust', { params: { query: { pubkey: pubkey! } } })),
  });
  if (!agent.registrationPubkey)
    return <p className="muted">This agent has no public key. Trust is scored per key (receipts are signed for it), so it carries none.</p>;
  const whose = (
    <p className="muted trust-key">
      {pubkey ? 'Trust of the key ' : 'Its key '}
      <span className="mono" data-testid="trust-key">
        {agent.registrationPubkey}
      </span>
      {pubkey ? '' : ' is not proven yet, so no receipts count for it.'}
    </p>
  );
  if (pubkey === null) return whose;
  if (trust.isPending) return <Loading query={trust} count={1} label="Loading trust" />;
  if (trust.isError) return <ErrorState error={trust.error} onRetry={() => void trust.refetch()} />;
  if (trust.data.data.classes.length === 0)
    return (
      <>
        {whose}
        <p className="muted">No verified outcome receipts yet: trust is the neutral 0.50.</p>
      </>
    );
  return (
    <>
      {whose}
      <table className="data">
        <thead>
          <tr>
            <th scope="col">Task class</th>
            <th scope="col">Trust</th>
            <th scope="col">Receipts</th>
            <th scope="col">Issuers</th>
          </tr>
        </thead>
        <tbody>
          {trust.data.data.classes.map((c) => (
            <tr key={c.taskClass}>
              <td className="mono">{c.taskClass}</td>
              <td>{c.score.toFixed(2)}</td>
              <td>{formatNumber(c.receipts)}</td>
              <td>{formatNumber(c.issuers)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
