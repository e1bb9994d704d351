import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useAccount } from '../session';
import { ErrorState, SkeletonRows } from './States';

/** Pages for signed-in people send everyone else to log in, and back here afterwards. */
export function RequireAccount({ children }: { children: ReactNode }) {
  const account = useAccount();
  const location = useLocation();
  if (account.isPending) {
    return (
      <div className="page">
        <SkeletonRows count={2} />
      </div>
    );
  }
  if (account.isError) {
    return (
      <div className="page">
        <ErrorState error={account.error} onRetry={() => void account.refetch()} />
      </div>
    );
  }
  if (!account.data) return <Navigate replace to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} />;
  return children;
}
