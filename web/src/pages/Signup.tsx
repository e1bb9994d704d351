import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { CredentialsForm } from '../components/CredentialsForm';
import { OidcFailure, OidcSignIn } from '../components/OidcSignIn';
import { safeNext } from '../lib/format';

export default function Signup() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const client = useQueryClient();
  useEffect(() => {
    document.title = 'Sign up · Agentry';
  }, []);
  return (
    <div className="page page-narrow">
      <h1>Create your account</h1>
      <OidcFailure />
      <CredentialsForm
        submitLabel="Sign up"
        newPassword
        onSubmit={async (email, password) => {
          const { data } = await unwrap(api.POST('/v1/auth/browser/signup', { body: { email, password } }));
          client.clear();
          client.setQueryData(['account'], data.account);
          navigate(`/signup/profile?next=${encodeURIComponent(next)}`, { replace: true });
        }}
      />
      <p className="muted after-form">
        Already have one? <Link to={`/login?next=${encodeURIComponent(next)}`}>Log in</Link>
      </p>
      <OidcSignIn next={`/signup/profile?next=${encodeURIComponent(next)}`} />
    </div>
  );
}
