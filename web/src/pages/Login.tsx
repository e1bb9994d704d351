import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { CredentialsForm } from '../components/CredentialsForm';
import { OidcFailure, OidcSignIn } from '../components/OidcSignIn';
import { safeNext } from '../lib/format';

export default function Login() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const client = useQueryClient();
  useEffect(() => {
    document.title = 'Log in · Agentry';
  }, []);
  return (
    <div className="page page-narrow">
      <h1>Log in</h1>
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
