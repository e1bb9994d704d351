import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A secret on screen for the only time: the value, a Copy button and the warning. The box takes the
 * focus so a keyboard or screen-reader user lands on it.
 */
export function SecretBox({
  title,
  label,
  secret,
  testId,
  afterwards = 'afterwards only its prefix is shown',
  onDone,
}: {
  title: ReactNode;
  label: string;
  secret: string;
  testId: string;
  /** What the person can do once the box is gone. */
  afterwards?: string;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <div className="secret-box" ref={box} tabIndex={-1} role="region" aria-label={label}>
      <strong>{title}</strong>
      <div className="secret-row">
        <code className="mono" data-testid={testId}>
          {secret}
        </code>
        <button
          type="button"
          className="button"
          onClick={async () => {
            await navigator.clipboard.writeText(secret);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p>You will not see this again. Store it somewhere safe now; {afterwards}.</p>
      <button type="button" className="link-button" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}
