import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';

/** The server's rules: an email address, a password of 8 to 200 characters. */
const emailPattern = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export function CredentialsForm({
  submitLabel,
  onSubmit,
  newPassword,
}: {
  submitLabel: string;
  onSubmit: (email: string, password: string) => Promise<void>;
  newPassword: boolean;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState({ email: false, password: false });
  const [serverError, setServerError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const emailError = email.length > 254 ? 'At most 254 characters' : !emailPattern.test(email) ? 'Enter an email address' : null;
  const passwordError = password.length < 8 ? 'At least 8 characters' : password.length > 200 ? 'At most 200 characters' : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched({ email: true, password: true });
    if (emailError || passwordError) return;
    setBusy(true);
    setServerError(null);
    try {
      await onSubmit(email, password);
    } catch (error) {
      setServerError(error instanceof ApiError ? error : new ApiError(0, 'UNKNOWN', String(error)));
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (name: 'email' | 'password', local: string | null) => serverError?.forField(name) ?? (touched[name] ? local : null);
  const emailMessage = fieldError('email', emailError);
  const passwordMessage = fieldError('password', passwordError);
  const general = serverError && !serverError.forField('email') && !serverError.forField('password') ? serverError.message : null;

  return (
    <form onSubmit={submit} noValidate>
      {general && (
        <p className="form-error" role="alert">
          {general}
        </p>
      )}
      <div className="field">
        <label htmlFor="email">Email</label>
        <input
          id="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          onBlur={() => setTouched((t) => ({ ...t, email: true }))}
          aria-invalid={Boolean(emailMessage)}
          aria-describedby="email-message"
          required
        />
        <p id="email-message" className="field-error">
          {emailMessage}
        </p>
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete={newPassword ? 'new-password' : 'current-password'}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          onBlur={() => setTouched((t) => ({ ...t, password: true }))}
          aria-invalid={Boolean(passwordMessage)}
          aria-describedby="password-message"
          required
        />
        <p id="password-message" className={passwordMessage ? 'field-error' : 'field-hint'}>
          {passwordMessage ?? (newPassword ? 'At least 8 characters.' : '')}
        </p>
      </div>
      <button className="button button-primary" type="submit" disabled={busy}>
        {busy ? 'Please wait…' : submitLabel}
      </button>
    </form>
  );
}
