import { randomBytes } from 'node:crypto';
import { formatPublicKey, publicKeyFromSeed, signMessage } from '../../src/lib/ed25519.ts';
import type { TestApp } from './app.ts';

export interface AgentKey {
  seed: Buffer;
  pubkey: string;
  sign(message: string): string;
}

export function newAgentKey(seed: Buffer = randomBytes(32)): AgentKey {
  return { seed, pubkey: formatPublicKey(publicKeyFromSeed(seed)), sign: (message) => signMessage(seed, message).toString('base64url') };
}

/** `X-Agent-Signature` for `agentId` at `seconds` (unix): the registration key's signature over "<agentId>.<seconds>". */
export const agentSignature = (agentId: string, key: AgentKey, seconds: number) => `${seconds}.${key.sign(`${agentId}.${seconds}`)}`;

/** The `X-Agent-Signature` header of a provisional agent's poll or heartbeat, signed at `now` (pass the app's clock when it has a test clock). */
export const signedBy = (agent: { id: string; key: AgentKey }, now: Date = new Date()) => ({
  'x-agent-signature': agentSignature(agent.id, agent.key, Math.floor(now.getTime() / 1000)),
});

let counter = 0;
export const uniqueName = (prefix = 'Agent') => `${prefix} ${process.pid}-${counter++}-${Math.random().toString(36).slice(2, 7)}`;

export function agentBody(overrides: Record<string, unknown> = {}) {
  return {
    name: uniqueName(),
    description: 'Summarises long documents into short briefs',
    endpoint: 'https://agent.example.test/tasks',
    protocols: ['rest'],
    categories: ['productivity'],
    ...overrides,
  };
}

export async function registerAgent(app: TestApp, token: string, overrides: Record<string, unknown> = {}) {
  const response = await app.request({ method: 'POST', url: '/v1/agents', token, body: agentBody(overrides) });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; slug: string; [k: string]: unknown };
}

export async function registerProvisional(app: TestApp, key: AgentKey = newAgentKey(), overrides: Record<string, unknown> = {}) {
  const response = await app.request({
    method: 'POST',
    url: '/v1/agents/provisional',
    body: { name: uniqueName('Provisional'), description: 'Polls for work', endpoint: 'https://p.example.test/hook', pubkey: key.pubkey, ...overrides },
  });
  if (response.statusCode !== 201) throw new Error(`provisional failed: ${response.statusCode} ${response.body}`);
  return { id: response.json().data.id as string, key };
}

export async function claimAgent(app: TestApp, token: string, agentId: string, key: AgentKey) {
  const challenge = (await app.request({ method: 'GET', url: `/v1/agents/${agentId}/claim/challenge` })).json().data;
  return app.request({ method: 'POST', url: `/v1/agents/${agentId}/claim`, token, body: { signature: key.sign(challenge.nonce) } });
}

/** Proves holding `key` for an agent the token owns (key challenge, then key proof), so the agent carries the key's trust. */
export async function proveKey(app: TestApp, token: string, agentId: string, key: AgentKey) {
  const challenge = await app.request({ method: 'GET', url: `/v1/agents/${agentId}/key-challenge`, token });
  if (challenge.statusCode !== 200) throw new Error(`key challenge failed: ${challenge.statusCode} ${challenge.body}`);
  const proof = await app.request({
    method: 'POST',
    url: `/v1/agents/${agentId}/key-proof`,
    token,
    body: { signature: key.sign(challenge.json().data.nonce) },
  });
  if (proof.statusCode !== 200) throw new Error(`key proof failed: ${proof.statusCode} ${proof.body}`);
  return proof.json().data as { id: string; keyVerifiedAt: string };
}
