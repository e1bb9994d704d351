import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { RequireAccount } from '../components/RequireAccount';
import { ErrorState, Loading, LoadingOrMissing } from '../components/States';
import { keyFromFile } from '../components/AgentKeyPicker';
import { KeyFileProblem, samePublicKey, type AgentSigningKey } from '../lib/agent-key';
import { exactTime } from '../lib/format';

type Method = 'file' | 'paste';
type Claimed = { id: string; status: string; claimedAt: string | null };
/** What went wrong with the last attempt, and whether a new challenge would help. */
type Problem = { message: string; offerNewChallenge?: boolean; alreadyClaimed?: boolean };

/** Seconds until `deadline` (this browser's clock, ms), updated every second; 0 once it has passed. */
function useSecondsUntil(deadline: number | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (deadline === undefined) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [deadline]);
  return deadline === undefined ? 0 : Math.max(0, Math.ceil((deadline - now) / 1000));
}

/**
 * A fresh claim challenge, with its expiry moved onto this browser's clock: the time left is
 * `expiresAt` minus the server's time of answering (its Date header), so a browser whose clock is
 * off still counts down correctly. The header has whole seconds, so one second is kept in hand.
 */
async function fetchChallenge(agentId: string) {
  // POST: a challenge issued to this account, which no one else asking for challenges can replace.
  const call = api.POST('/v1/agents/{id}/claim/challenge', { params: { path: { id: agentId } } });
  const { data } = await unwrap(call);
  const serverNow = Date.parse((await call).response.headers.get('date') ?? '');
  const validForMs = Date.parse(data.expiresAt) - (Number.isNaN(serverNow) ? Date.now() : serverNow + 1000);
  return { ...data, deadline: Date.now() + validForMs };
}

const minutesAndSeconds = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/** The sentence for a refused claim: the server's message, in the person's terms where we know the case. */
function problemOf(error: unknown): Problem {
  if (error instanceof KeyFileProblem) return { message: error.message };
  if (!(error instanceof ApiError)) return { message: error instanceof Error ? error.message : String(error) };
  if (error.status === 403) return { message: 'The signature does not match this agent’s registration key. Sign with the key the agent was registered with.' };
  if (error.status === 409) return { message: 'This agent has already been claimed.', alreadyClaimed: true };
  if (error.status === 400 && /expired|replaced|No active/i.test(error.message)) {
    return {
      message: `The challenge is no longer valid (${error.message.replace(/: request .*$/, '')}). Get a new challenge and sign that.`,
      offerNewChallenge: true,
    };
  }
  return { message: error.forField('signature') ?? error.message };
}

/** The agent's key read from `file`, or a KeyFileProblem naming what the file holds instead. */
async function registrationKeyIn(file: File, registrationPubkey: string | null): Promise<AgentSigningKey> {
  const key = await keyFromFile(file);
  if (!registrationPubkey || !samePublicKey(key.publicKey, registrationPubkey)) {
    throw new KeyFileProblem(
      `This is not the agent’s key: its public half is ${key.publicKey}, and the agent was registered with ${registrationPubkey ?? 'no key'}.`,
    );
  }
  return key;
}

function ClaimBody() {
  const { agentId = '' } = useParams();
  const client = useQueryClient();
  const agent = useQuery({
    queryKey: ['agent-record', agentId],
    queryFn: () => unwrap(api.GET('/v1/agents/{id}', { params: { path: { id: agentId } } })),
  });
  const provisional = agent.data?.data.status === 'provisional';
  const challenge = useQuery({
    queryKey: ['claim-challenge', agentId],
    enabled: provisional,
    queryFn: () => fetchChallenge(agentId),
    // A challenge is spent by use and expires by time: never reuse one from an earlier visit.
    gcTime: 0,
    staleTime: Infinity,
  });
  const secondsLeft = useSecondsUntil(challenge.data?.deadline);
  const expired = challenge.isSuccess && secondsLeft === 0;

  const [method, setMethod] = useState<Method>('file');
  const [keyFile, setKeyFile] = useState<File | null>(null);
  const [keyMatches, setKeyMatches] = useState(false);
  const [signature, setSignature] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [claimed, setClaimed] = useState<Claimed | null>(null);
  const problemBox = useRef<HTMLDivElement>(null);
  const resultBox = useRef<HTMLDivElement>(null);
  const ids = { file: useId(), paste: useId() };

  useEffect(() => {
    document.title = agent.data ? `Claim ${agent.data.data.name} · Agentry` : 'Claim an agent · Agentry';
  }, [agent.data]);
  useEffect(() => {
    if (problem) problemBox.current?.focus();
  }, [problem]);
  useEffect(() => {
    if (claimed) resultBox.current?.focus();
  }, [claimed]);

  const newChallenge = async () => {
    setProblem(null);
    await challenge.refetch();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!agent.data || !challenge.data) return;
    const { registrationPubkey } = agent.data.data;
    const { nonce } = challenge.data;
    setProblem(null);
    setBusy(true);
    try {
      let signed: string;
      if (method === 'file') {
        if (!keyFile) throw new KeyFileProblem('Choose the agent’s private key file first.');
        signed = await (await registrationKeyIn(keyFile, registrationPubkey)).sign(nonce);
      } else {
        signed = signature.trim();
        if (!signed) throw new KeyFileProblem('Paste the signature first.');
      }
      const answer = await unwrap(api.POST('/v1/agents/{id}/claim', { params: { path: { id: agentId } }, body: { signature: signed } }));
      setClaimed(answer.data);
      void client.invalidateQueries({ queryKey: ['agent-record', agentId] });
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };

  if (agent.isPending || agent.isError) {
    return (
      <LoadingOrMissing
        query={agent}
        loadingLabel="Loading the agent"
        missingTitle="No agent here."
        missingHint="Check the address you were given: it ends with the agent’s id."
      />
    );
  }

  const a = agent.data.data;
  const agentLinks = (
    <p className="claim-links">
      <Link to={`/agents/${encodeURIComponent(a.slug)}`}>Public page of {a.name}</Link>
      <Link to={`/me/agents/${encodeURIComponent(a.id)}`}>Manage {a.name}</Link>
    </p>
  );

  if (claimed) {
    return (
      <div className="page page-medium">
        <h1>Claim {a.name}</h1>
        <div className="claim-success" role="status" tabIndex={-1} ref={resultBox}>
          <p>
            <strong>{a.name} is yours now.</strong> Its status is <span className="badge badge-ok">{claimed.status}</span>
            {claimed.claimedAt && <> since {exactTime(claimed.claimedAt)}</>}. You can make API keys for it and manage it.
          </p>
          {agentLinks}
        </div>
      </div>
    );
  }

  const facts = (
    <dl className="facts card">
      <dt>Name</dt>
      <dd>{a.name}</dd>
      <dt>Description</dt>
      <dd>{a.description}</dd>
      <dt>Registration key</dt>
      <dd className="mono" data-testid="registration-key">
        {a.registrationPubkey ?? '—'}
      </dd>
      <dt>Status</dt>
      <dd>{a.status}</dd>
    </dl>
  );

  if (!provisional) {
    return (
      <div className="page page-medium">
        <h1>Claim {a.name}</h1>
        {facts}
        <div className="state claim-state">
          <p className="state-title">This agent has already been claimed.</p>
          <p className="muted">Only a provisional agent can be claimed. If it is yours, manage it from your agents.</p>
          {agentLinks}
        </div>
      </div>
    );
  }

  const c = challenge.data;
  const keyFileName = 'agent-key.pem';
  const opensslCommand = c ? `printf '%s' '${c.nonce}' > nonce.txt\nopenssl pkeyutl -sign -rawin -inkey ${keyFileName} -in nonce.txt | openssl base64 -A` : '';

  return (
    <div className="page page-medium">
      <h1>Claim {a.name}</h1>
      <p className="muted">
        Prove that you hold this agent’s registration key by signing a challenge with it. The agent then becomes yours: active, owned by your account.
      </p>
      {facts}

      <h2>Challenge</h2>
      {challenge.isPending ? (
        <Loading query={challenge} count={1} label="Loading the challenge" />
      ) : challenge.isError ? (
        <ErrorState error={challenge.error} onRetry={() => void challenge.refetch()} />
      ) : (
        <div className="card claim-challenge">
          <p className="mono" data-testid="nonce">
            {c!.nonce}
          </p>
          {expired ? (
            <p className="field-error" role="alert">
              This challenge has expired.{' '}
              <button type="button" className="link-button" onClick={() => void newChallenge()}>
                Get a new challenge
              </button>
            </p>
          ) : (
            <p className="muted">
              Valid until {exactTime(c!.expiresAt)}: <span aria-hidden="true">{minutesAndSeconds(secondsLeft)} left</span>
              <span className="visually-hidden">{Math.ceil(secondsLeft / 60)} minutes left</span>
            </p>
          )}
        </div>
      )}

      <h2>Sign it</h2>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <fieldset className="claim-methods">
          <legend className="visually-hidden">How to sign</legend>
          <label>
            <input type="radio" name="method" value="file" checked={method === 'file'} onChange={() => setMethod('file')} /> With the key file, in this page
          </label>
          <label>
            <input type="radio" name="method" value="paste" checked={method === 'paste'} onChange={() => setMethod('paste')} /> Paste a signature made elsewhere
          </label>
        </fieldset>

        {method === 'file' ? (
          <div className="field">
            <label htmlFor={ids.file}>Private key file (PKCS#8 PEM, Ed25519)</label>
            <input
              id={ids.file}
              type="file"
              accept=".pem,.key,application/x-pem-file,text/plain"
              onChange={(e) => {
                const file = e.target.files?.[0] ?? null;
                setKeyFile(file);
                setProblem(null);
                setKeyMatches(false);
                // Checked at once, so a wrong file is named before the person signs anything.
                if (file)
                  registrationKeyIn(file, a.registrationPubkey).then(
                    () => setKeyMatches(true),
                    (error: unknown) => setProblem(problemOf(error)),
                  );
              }}
              aria-describedby={`${ids.file}-hint`}
            />
            <p id={`${ids.file}-hint`} className={keyMatches ? 'field-ok' : 'field-hint'}>
              {keyMatches ? 'This is the agent’s key.' : 'The key is read and used in this page only: it is never uploaded. Only the signature is sent.'}
            </p>
          </div>
        ) : (
          <div className="field">
            <p className="muted">Sign the challenge with OpenSSL (the key file is the one the agent was registered with):</p>
            <pre className="mono command" data-testid="openssl-command">
              {opensslCommand}
            </pre>
            <p className="muted">Or let the command-line tool do the whole claim (challenge, signature and claim) for you:</p>
            <pre className="mono command" data-testid="cli-command">
              agentry claim {a.id} --key {keyFileName}
            </pre>
            <label htmlFor={ids.paste}>Signature (base64 or base64url)</label>
            <textarea
              id={ids.paste}
              className="mono"
              rows={3}
              spellCheck={false}
              autoComplete="off"
              value={signature}
              onChange={(e) => setSignature(e.target.value)}
            />
          </div>
        )}

        <div className="claim-problem" ref={problemBox} tabIndex={-1}>
          {problem && (
            <div className="form-error" role="alert">
              <p>{problem.message}</p>
              {problem.offerNewChallenge && (
                <button type="button" className="button" onClick={() => void newChallenge()}>
                  Get a new challenge
                </button>
              )}
              {problem.alreadyClaimed && agentLinks}
            </div>
          )}
        </div>
        <button className="button button-primary" type="submit" disabled={busy || !challenge.isSuccess || expired}>
          {busy ? 'Claiming…' : `Claim ${a.name}`}
        </button>
      </form>
    </div>
  );
}

export default function Claim() {
  return (
    <RequireAccount>
      <ClaimBody />
    </RequireAccount>
  );
}
