import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, ApiError, unwrap } from '../../api/client';
import type { OwnedAgent } from '../../api/types';
import { Price } from '../../components/AgentBits';
import { ErrorState, Loading } from '../../components/States';
import { exactTime, formatMoney, relativeTime, safeHttpUrl } from '../../lib/format';

function usePaymentAccount(agentId: string) {
  return useQuery({
    queryKey: ['payment-account', agentId],
    queryFn: async () => {
      try {
        return (await unwrap(api.GET('/v1/agents/{id}/payment-account', { params: { path: { id: agentId } } }))).data;
      } catch (error) {
        // None connected yet.
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
}

/** The platform fee and the providers this service offers; they change only with its configuration. */
function usePaymentTerms() {
  return useQuery({
    queryKey: ['payment-terms'],
    queryFn: async () => (await unwrap(api.GET('/v1/payments/terms'))).data,
    staleTime: Infinity,
  });
}

/** 250 basis points → "2.5%". */
const percentOf = (bps: number) => `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(bps / 100)}%`;

const PAGE = 20;

function PaidTasks({ agentId }: { agentId: string }) {
  const [offset, setOffset] = useState(0);
  const paid = useQuery({
    queryKey: ['earnings', agentId, offset],
    queryFn: () => unwrap(api.GET('/v1/agents/{id}/earnings', { params: { path: { id: agentId }, query: { limit: PAGE, offset } } })),
  });
  if (paid.isPending) return <Loading query={paid} count={2} label="Loading the paid tasks" />;
  if (paid.isError) return <ErrorState error={paid.error} onRetry={() => void paid.refetch()} />;
  const { data: rows, pagination } = paid.data;
  if (rows.length === 0) return <p className="muted">No paid task yet. Each task completed at a price shows here with its fee and what the agent earned.</p>;
  return (
    <>
      <table className="data earnings-table" aria-label="Paid tasks">
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Paid</th>
            <th scope="col" className="number">
              Amount
            </th>
            <th scope="col" className="number">
              Fee
            </th>
            <th scope="col" className="number">
              Net
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={row.taskId ?? index}>
              <td>{row.taskId ? <Link to={`/tasks/${encodeURIComponent(row.taskId)}`}>{row.taskId.slice(0, 8)}</Link> : '—'}</td>
              <td>
                <time dateTime={row.createdAt} title={exactTime(row.createdAt)}>
                  {relativeTime(row.createdAt)}
                </time>
              </td>
              <td className="number">{formatMoney(row.amountCents, row.currency)}</td>
              <td className="number">−{formatMoney(row.feeCents, row.currency)}</td>
              <td className="number">
                <strong>{formatMoney(row.netCents, row.currency)}</strong>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {(offset > 0 || pagination.hasMore) && (
        <nav className="pager" aria-label="Pages of paid tasks">
          {offset > 0 ? (
            <button type="button" className="link-button" onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              ← Newer
            </button>
          ) : (
            <span />
          )}
          {pagination.hasMore ? (
            <button type="button" className="link-button" onClick={() => setOffset(offset + PAGE)}>
              Older →
            </button>
          ) : (
            <span />
          )}
        </nav>
      )}
    </>
  );
}

export default function EarningsTab({ agent }: { agent: OwnedAgent }) {
  const client = useQueryClient();
  const account = usePaymentAccount(agent.id);
  const balance = useQuery({
    queryKey: ['balance', agent.id],
    queryFn: () => unwrap(api.GET('/v1/agents/{id}/balance', { params: { path: { id: agent.id } } })),
  });
  const terms = usePaymentTerms();
  const stripeOffered = terms.data?.providers.includes('stripe') ?? false;
  const [provider, setProvider] = useState<'ledger' | 'stripe'>('ledger');
  const here = `${window.location.origin}/me/agents/${encodeURIComponent(agent.id)}/earnings`;
  const connect = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/agents/{id}/payment-account', {
          params: { path: { id: agent.id } },
          body: provider === 'stripe' && stripeOffered ? { provider, returnUrl: here, refreshUrl: here } : { provider },
        }),
      ),
    onSuccess: (answer) => client.setQueryData(['payment-account', agent.id], answer.data),
  });
  const onboarding = safeHttpUrl(account.data?.onboardingUrl ?? connect.data?.data.onboardingUrl);

  return (
    <div>
      <h2>Price</h2>
      <p>
        <Price agent={agent} /> <Link to={`/me/agents/${encodeURIComponent(agent.id)}/settings`}>Change it in Settings</Link>
      </p>
      {terms.data && (
        <p className="muted" data-testid="platform-fee">
          The platform keeps a fee of {percentOf(terms.data.feeBps)} of each paid task (rounded down to the cent); the agent earns the rest.
        </p>
      )}
      <h2>Balance</h2>
      {balance.isPending ? (
        <Loading query={balance} count={1} label="Loading the balance" />
      ) : balance.isError ? (
        <ErrorState error={balance.error} onRetry={() => void balance.refetch()} />
      ) : (
        <dl className="facts" aria-label="Balance">
          <dt>Available</dt>
          <dd data-testid="balance-available">{formatMoney(balance.data.data.availableCents, balance.data.data.currency)}</dd>
          <dt>Paid out</dt>
          <dd>{formatMoney(balance.data.data.paidOutCents, balance.data.data.currency)}</dd>
        </dl>
      )}
      <h2>Paid tasks</h2>
      <PaidTasks agentId={agent.id} />
      <h2>Payment account</h2>
      {account.isPending ? (
        <Loading query={account} count={1} label="Loading the payment account" />
      ) : account.isError ? (
        <ErrorState error={account.error} onRetry={() => void account.refetch()} />
      ) : account.data ? (
        <>
          <dl className="facts" aria-label="Payment account">
            <dt>Provider</dt>
            <dd>{account.data.provider === 'stripe' ? 'Stripe Connect' : 'Ledger'}</dd>
            <dt>Status</dt>
            <dd>
              <span className={`badge ${account.data.status === 'active' ? 'badge-ok' : ''}`}>{account.data.status}</span>
            </dd>
          </dl>
          {account.data.provider === 'ledger' && <p className="muted">Earnings are kept as a balance here; the operator pays them out and records it.</p>}
          {account.data.status === 'pending' &&
            (onboarding ? (
              <p>
                <a className="button button-primary" href={onboarding} rel="noopener noreferrer">
                  Continue onboarding with Stripe
                </a>
              </p>
            ) : (
              <button type="button" className="button" onClick={() => connect.mutate()} disabled={connect.isPending}>
                Get a new onboarding link
              </button>
            ))}
        </>
      ) : (
        <form
          className="page-form"
          onSubmit={(event) => {
            event.preventDefault();
            connect.mutate();
          }}
        >
          <p className="muted">Without one, earnings are still kept on the ledger. Connecting is how you choose where they are paid.</p>
          {stripeOffered ? (
            <fieldset className="field">
              <legend className="label">Provider</legend>
              <label className="checkbox">
                <input type="radio" name="provider" checked={provider === 'ledger'} onChange={() => setProvider('ledger')} /> Ledger: balances here, paid out by
                the operator
              </label>
              <label className="checkbox">
                <input type="radio" name="provider" checked={provider === 'stripe'} onChange={() => setProvider('stripe')} /> Stripe Connect: paid to your
                Stripe account as tasks complete
              </label>
            </fieldset>
          ) : (
            <p>This service pays through the ledger: balances are kept here and the operator pays them out.</p>
          )}
          {connect.isError && (
            <p className="form-error" role="alert">
              {connect.error.message}
            </p>
          )}
          <button type="submit" className="button button-primary" disabled={connect.isPending}>
            Connect payment account
          </button>
        </form>
      )}
    </div>
  );
}
