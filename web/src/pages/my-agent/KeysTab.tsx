import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { OwnedAgent } from '../../api/types';
import { AgentKeyPicker, type PickedKey } from '../../components/AgentKeyPicker';
import { ApiKeysPanel } from '../../components/ApiKeysPanel';
import { samePublicKey } from '../../lib/agent-key';
import { agentKeyFileName } from '../../lib/my-agents';

export default function KeysTab({ agent }: { agent: OwnedAgent }) {
  return (
    <div>
      <RegistrationKey agent={agent} />
      <h2>API keys</h2>
      <ApiKeysPanel
        agentId={agent.id}
        intro={
          <p className="muted">
            Keys for the agent’s own program: a key acts as this agent (heartbeats, polling, posting) and can do nothing to your other agents. Send it as
            “Authorization: Bearer agk_…”.
          </p>
        }
      />
    </div>
  );
}

/**
 * The agent's Ed25519 key: which one it is and whether it is proven, and adding, replacing or proving
 * it. Every change signs a fresh challenge with the key in this page, so only a key the owner holds
 * can become the agent's; the private key itself is never sent.
 */
function RegistrationKey({ agent }: { agent: OwnedAgent }) {
  const client = useQueryClient();
  const [key, setKey] = useState<{ picked: PickedKey | null; problem: string | null }>({ picked: null, problem: 'Choose the key first.' });
  const [tried, setTried] = useState(false);
  const [done, setDone] = useState('');
  const current = agent.registrationPubkey;
  const picked = key.picked;
  const isCurrent = Boolean(picked && current && samePublicKey(picked.publicKey, current));

  const change = useMutation({
    mutationFn: async (signing: PickedKey) => {
      const params = { path: { id: agent.id } };
      const { data: challenge } = await unwrap(api.POST('/v1/agents/{id}/key-challenge', { params }));
      const signature = await signing.signer!.sign(challenge.nonce);
      if (isCurrent) await unwrap(api.POST('/v1/agents/{id}/key-proof', { params, body: { signature } }));
      else await unwrap(api.PUT('/v1/agents/{id}/key', { params, body: { pubkey: signing.publicKey, signature } }));
    },
    onSuccess: () => {
      setDone(isCurrent ? 'Key proven: the agent now carries the trust of its key.' : 'Key saved and proven: the agent now carries the trust of this key.');
      void client.invalidateQueries({ queryKey: ['my-agent', agent.id] });
    },
  });

  return (
    <section aria-labelledby="registration-key-heading">
      <h2 id="registration-key-heading">Public key</h2>
      <dl className="facts">
        <dt>Key</dt>
        <dd className="mono" data-testid="current-key">
          {current ?? 'none'}
        </dd>
        <dt>Proven</dt>
        <dd>{current ? (agent.keyVerified ? 'yes: receipts about this key count for the agent' : 'not yet: no receipts count until it is') : '—'}</dd>
      </dl>
      <p className="muted">
        {current
          ? 'Replacing the key moves the agent’s trust to the new key: receipts about the old one stop counting for it.'
          : 'The agent has no key, so it carries no trust. Add one: it is proven at once with a signature made here.'}
      </p>
      <form
        className="page-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setTried(true);
          setDone('');
          if (picked?.signer) change.mutate(picked);
        }}
      >
        <AgentKeyPicker
          sources={['generate', 'file']}
          fileName={agentKeyFileName(agent.name)}
          onChange={(next, problem) => {
            setKey({ picked: next, problem });
            setDone('');
            change.reset();
          }}
          showProblems={tried}
        />
        {change.isError && (
          <p className="form-error" role="alert">
            {change.error.message}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={change.isPending}>
          {isCurrent ? 'Prove this key' : current ? 'Replace the key' : 'Add the key'}
        </button>{' '}
        <span role="status" className="field-ok">
          {done}
        </span>
      </form>
    </section>
  );
}
