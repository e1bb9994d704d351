import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { CredentialsForm } from '../components/CredentialsForm';
import { OidcFailure, OidcSignIn } from '../components/OidcSignIn';
import { safeNext } from '../lib/format';
import { forgetSessionEnded, sessionEnded } from '../lib/form-drafts';

export default function Login() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const client = useQueryClient();
  const [ended] = useState(sessionEnded);
  useEffect(() => {
    document.title = 'Log in · Agentry';
    forgetSessionEnded();
  }, []);
  return (
    <div className="page page-narrow">
      <h1>Log in</h1>
      {ended && (
        <p className="notice" role="status">
          Your session has ended. Log in again to go on where you were; what you typed there is kept, except passwords, keys and secrets.
        </p>
      )}
      <OidcFailure />
      <CredentialsForm
        submitLabel="Log in"
        newPassword={false}
        onSubmit={async (email, password) => {
          const { data } = await unwrap(api.POST('/v1/auth/browser/login', { body: { email, password } }));
          client.clear();
          client.setQueryData(['account'], data.account);
          navigate(next, { replace: true });
        }}
      />
      <p className="muted after-form">
        No account yet? <Link to={`/signup?next=${encodeURIComponent(next)}`}>Sign up</Link>
      </p>
      <OidcSignIn next={next} />
    </div>
  );
}
