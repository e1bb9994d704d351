import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { formatNumber } from '../lib/format';
import { ErrorState, SkeletonRows } from './States';

/**
 * Trust per task class of an agent's registration key. `pubkey` is null until the agent has proven it
 * holds the key: before that no receipt counts for it.
 */
export function TrustClasses({ pubkey }: { pubkey: string | null }) {
  const trust = useQuery({
    queryKey: ['trust', pubkey],
    enabled: pubkey !== null,
    queryFn: () => unwrap(api.GET('/v1/trust', { params: { query: { pubkey: pubkey! } } })),
  });
  if (pubkey === null) return <p className="muted">This agent has not proven it holds its registration key, so no receipts count for it yet.</p>;
  if (trust.isPending) return <SkeletonRows count={1} label="Loading trust" />;
  if (trust.isError) return <ErrorState error={trust.error} onRetry={() => void trust.refetch()} />;
  if (trust.data.data.classes.length === 0) return <p className="muted">No verified outcome receipts yet: trust is the neutral 0.50.</p>;
  return (
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
  );
}
