import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { Task } from '../api/types';
import { KeyFileProblem, samePublicKey, type AgentSigningKey } from '../lib/agent-key';
import { useMyAgents } from '../lib/my-agents';
import { outcomes, signOutcomeReceipt, signingKeyStatement, type Outcome } from '../lib/outcome-receipt';
import { useAccount } from '../session';
import { keyFromFile } from './AgentKeyPicker';
import { explorerOfFlow } from './Receipts';
import { ErrorState, Loading } from './States';

const outcomeWords: Record<Outcome, string> = { success: 'Success', partial: 'Partly done', failure: 'Failure', rolled_back: 'Rolled back' };

/** What the service said of the receipt, from its acknowledgement. */
type Ack = { counts: boolean; countsReason: string | null; taskBound: boolean; taskBoundReason: string | null; outcome: Outcome };

/** Whose key the chosen file holds, as far as this account is concerned. */
type KeyStanding = { kind: 'agent'; agentId: string; agentName: string } | { kind: 'signing' } | { kind: 'unregistered' } | { kind: 'checking' };

function problemText(error: unknown): string {
  if (error instanceof KeyFileProblem) return error.message;
  if (error instanceof ApiError) return error.forField('signature') ?? error.forField('pubkey') ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * After a task ends, its requester may sign an outcome receipt about the agent that took it, bound
 * to the task: the key file is read and used in the page (never sent), the receipt is built as the
 * SDK's `signTaskOutcome` builds it, and the acknowledgement is said in words.
 */
export function OutcomeReceipt({ task }: { task: Task }) {
  const agent = task.assignedAgent;
  if (!agent || (task.status !== 'completed' && task.status !== 'failed')) return null;
  return (
    <section aria-labelledby="receipt-title">
      <h2 id="receipt-title">Sign an outcome receipt</h2>
      <ReceiptBody task={task} agentRef={agent} />
    </section>
  );
}

function ReceiptBody({ task, agentRef }: { task: Task; agentRef: NonNullable<Task['assignedAgent']> }) {
  const client = useQueryClient();
  const myAgents = useMyAgents();
  const account = useAccount();
  const agent = useQuery({
    queryKey: ['agent', agentRef.slug],
    queryFn: () => unwrap(api.GET('/v1/discover/{slug}', { params: { path: { slug: agentRef.slug } } })),
  });
  const [outcome, setOutcome] = useState<Outcome>(task.status === 'completed' ? 'success' : 'failure');
  const [key, setKey] = useState<AgentSigningKey | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState<'register' | 'sign' | null>(null);
  const [ack, setAck] = useState<Ack | null>(null);
  const ids = { file: useId(), outcome: useId() };
  const problemBox = useRef<HTMLDivElement>(null);
  const ackBox = useRef<HTMLDivElement>(null);
  const signingKeys = useQuery({
    queryKey: ['signing-keys'],
    enabled: key !== null,
    queryFn: () => unwrap(api.GET('/v1/account/signing-keys')),
  });
  useEffect(() => {
    if (problem) problemBox.current?.focus();
  }, [problem]);
  useEffect(() => {
    if (ack) ackBox.current?.focus();
  }, [ack]);

  if (myAgents.isPending || agent.isPending) return <Loading query={agent.isPending ? agent : myAgents} count={1} label="Loading the agent" />;
  if (agent.isError) return <ErrorState error={agent.error} onRetry={() => void agent.refetch()} />;
  const name = agentRef.name;
  if (myAgents.data?.data.some((mine) => mine.id === agentRef.id))
    return <p className="muted">{name} is your own agent: receipts you sign about it do not count towards its trust.</p>;
  const subjectPubkey = agent.data.data.registrationPubkey;
  if (!subjectPubkey) return <p className="muted">{name} has no registration key, so there is no key a receipt could speak about.</p>;
  if (!task.taskClass)
    return (
      <p className="muted">
        This task has no task class (none was given, and {name}’s first capability is not in the catalogue), so a receipt cannot be bound to it.
      </p>
    );
  const taskClass = task.taskClass;

  const ownAgent = key ? myAgents.data?.data.find((mine) => mine.registrationPubkey && samePublicKey(mine.registrationPubkey, key.publicKey)) : undefined;
  const standing: KeyStanding | null = !key
    ? null
    : ownAgent
      ? { kind: 'agent', agentId: ownAgent.id, agentName: ownAgent.name }
      : signingKeys.isPending
        ? { kind: 'checking' }
        : signingKeys.data?.data.some((registered) => samePublicKey(registered.pubkey, key.publicKey))
          ? { kind: 'signing' }
          : { kind: 'unregistered' };

  const chooseFile = async (file: File | null) => {
    setKey(null);
    setProblem(null);
    if (!file) return;
    try {
      setKey(await keyFromFile(file));
    } catch (error) {
      setProblem(problemText(error));
    }
  };

  const register = async () => {
    if (!key || !account.data) return;
    setProblem(null);
    setBusy('register');
    try {
      const signature = await key.sign(signingKeyStatement(account.data.id, key.publicKey));
      await unwrap(api.POST('/v1/account/signing-keys', { body: { pubkey: key.publicKey, signature } }));
      await client.invalidateQueries({ queryKey: ['signing-keys'] });
    } catch (error) {
      setProblem(problemText(error));
    } finally {
      setBusy(null);
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!key) {
      setProblem('Choose your private key file first.');
      return;
    }
    setProblem(null);
    setBusy('sign');
    try {
      const receipt = await signOutcomeReceipt({
        task,
        subject: { id: agentRef.id, pubkey: subjectPubkey },
        outcome,
        key,
        ...(standing?.kind === 'agent' ? { issuerAgent: standing.agentId } : {}),
      });
      const answer = await unwrap(api.POST('/v1/trust-receipts', { body: receipt as never }));
      setAck({ ...answer.data, outcome });
      void client.invalidateQueries({ queryKey: ['trust'] });
    } catch (error) {
      setProblem(problemText(error));
    } finally {
      setBusy(null);
    }
  };

  if (ack) {
    const verdict = !ack.counts
      ? `It was stored, but it does not count towards ${name}’s trust: ${ack.countsReason ?? 'unknown reason'}.`
      : ack.taskBound
        ? `It counts towards ${name}’s trust in ${taskClass}, bound to this task, so it weighs fully.`
        : `It counts towards ${name}’s trust in ${taskClass}, but not bound to this task (${ack.taskBoundReason ?? 'unknown reason'}), so it weighs as an ordinary outcome: less than a task-bound one.`;
    return (
      <div className={ack.counts ? 'receipt-ack claim-success' : 'receipt-ack form-error'} role="status" tabIndex={-1} ref={ackBox} data-testid="receipt-ack">
        <p>
          <strong>Your receipt (“{outcomeWords[ack.outcome].toLowerCase()}”) was received.</strong> {verdict}
        </p>
        <p className="claim-links">
          <Link to={explorerOfFlow(task.id)}>This task’s receipts in the explorer</Link>
          <Link to={`/agents/${encodeURIComponent(agentRef.slug)}`}>Why {name}’s score is what it is</Link>
          <button type="button" className="link-button" onClick={() => setAck(null)}>
            Sign another (the latest one counts)
          </button>
        </p>
      </div>
    );
  }

  const keyHint =
    standing === null ? (
      <p id={`${ids.file}-hint`} className="field-hint">
        Your key is read and used in this page only: it is never uploaded. Only the signed receipt is sent.
      </p>
    ) : standing.kind === 'agent' ? (
      <p id={`${ids.file}-hint`} className="field-ok">
        This is the key of your agent {standing.agentName}: the receipt is issued by it.
      </p>
    ) : standing.kind === 'signing' ? (
      <p id={`${ids.file}-hint`} className="field-ok">
        This key is registered on your account for signing receipts.
      </p>
    ) : standing.kind === 'checking' ? (
      <p id={`${ids.file}-hint`} className="field-hint">
        Checking whose key this is…
      </p>
    ) : (
      <div id={`${ids.file}-hint`} className="notice">
        <p>
          This key is not registered on your account, so a receipt signed with it would not count. Register it here: the page signs a statement naming your
          account with it, which proves you hold it (the key still stays in the page). Or from a terminal:{' '}
          <code className="mono">agentry account signing-key add --key &lt;file&gt;</code>.
        </p>
        <button type="button" className="button" disabled={busy !== null || !account.data} onClick={() => void register()}>
          {busy === 'register' ? 'Registering…' : 'Register this key on my account'}
        </button>
      </div>
    );

  return (
    <>
      <p className="muted">
        Say how the work went, signed with your key. The receipt speaks about {name}’s key in the class <span className="mono">{taskClass}</span>, and bound to
        this task it weighs fully in {name}’s trust.
        {!agent.data.data.keyVerified && <> {name} has not proven its key yet, so the receipt would count only as an ordinary outcome.</>}
      </p>
      <form onSubmit={(event) => void submit(event)} noValidate className="receipt-form">
        <fieldset className="claim-methods">
          <legend>How did it go?</legend>
          {outcomes.map((value) => (
            <label key={value}>
              <input type="radio" name={ids.outcome} value={value} checked={outcome === value} onChange={() => setOutcome(value)} /> {outcomeWords[value]}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={ids.file}>Your private key file (PKCS#8 PEM, Ed25519)</label>
          <input
            id={ids.file}
            type="file"
            accept=".pem,.key,application/x-pem-file,text/plain"
            onChange={(e) => void chooseFile(e.target.files?.[0] ?? null)}
            aria-describedby={`${ids.file}-hint`}
          />
          {keyHint}
        </div>
        <div className="claim-problem" ref={problemBox} tabIndex={-1}>
          {problem && (
            <p className="form-error" role="alert">
              {problem}
            </p>
          )}
        </div>
        <button
          className="button button-primary"
          type="submit"
          disabled={busy !== null || (standing !== null && standing.kind !== 'agent' && standing.kind !== 'signing')}
        >
          {busy === 'sign' ? 'Signing…' : 'Sign and send the receipt'}
        </button>
      </form>
    </>
  );
}
