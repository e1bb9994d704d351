import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';

/** The sign-in options rarely change: asked once per page load. */
function useSignInOptions() {
  return useQuery({ queryKey: ['sign-in-options'], queryFn: () => unwrap(api.GET('/v1/auth/sign-in-options')), staleTime: Infinity });
}

/** Why the issuer's sign-in came back without a session (`/login?oidc_error=<reason>`), in the person's terms. */
function failureMessage(reason: string, detail: string | null, issuer: string): string {
  switch (reason) {
    case 'provider':
      return detail === 'access_denied'
        ? `The sign-in at ${issuer} was cancelled.`
        : `${issuer} did not sign you in${detail ? ` (${detail})` : ''}. Try again.`;
    case 'expired':
      return 'The sign-in took too long, or was started in another browser. Start again.';
    case 'state':
      return 'The answer did not belong to the sign-in this browser started, so it was refused. Start again.';
    case 'issuer':
      return `The answer came from another identity provider than ${issuer}, so it was refused.`;
    case 'exchange':
      return `${issuer} refused to finish the sign-in${detail ? ` (${detail})` : ''}; a sign-in link works only once. Start again.`;
    case 'token':
      return `${issuer}’s answer could not be verified, so it was refused. Start again.`;
    case 'unavailable':
      return `${issuer} could not be reached. Try again in a moment.`;
    default:
      return 'The sign-in did not complete. Start again.';
  }
}

/** The reason an OIDC sign-in failed, shown above the form; nothing when there was none. */
export function OidcFailure() {
  const [params] = useSearchParams();
  const options = useSignInOptions();
  const reason = params.get('oidc_error');
  if (!reason) return null;
  const issuer = options.data?.data.oidc?.name ?? 'The identity provider';
  return (
    <p className="form-error" role="alert">
      {failureMessage(reason, params.get('oidc_detail'), issuer)}
    </p>
  );
}

/** “Sign in with <issuer>” when the service has an OIDC issuer for browsers: a page navigation to the service, which sends the browser on. */
export function OidcSignIn({ next }: { next: string }) {
  const options = useSignInOptions();
  const oidc = options.data?.data.oidc;
  if (!oidc) return null;
  return (
    <div className="oidc-sign-in">
      <p className="divider muted">or</p>
      <a className="button oidc-button" href={`${oidc.startPath}?next=${encodeURIComponent(next)}`}>
        Sign in with {oidc.name}
      </a>
    </div>
  );
}
