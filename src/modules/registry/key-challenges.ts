/**
 * Nonces an agent's registration key signs to prove it is held: to claim a provisional agent, and for
 * the owner of an active agent to prove its key (docs/registry.md). Both flows share one challenge per
 * agent (a new one replaces the old): an agent is either provisional or active, so they never overlap.
 */
import { randomBytes } from 'node:crypto';
import { isoIn, isoNow, type Clock } from '../../lib/clock.ts';
import { badRequest, forbidden } from '../../lib/errors.ts';
import { parsePublicKey, parseSignature, verifyStrict } from '../../lib/ed25519.ts';
import type { ChallengeRow, RegistryStore } from './store.ts';

const CHALLENGE_TTL_MS = 10 * 60 * 1000;

/** What a challenge is for: where its signature is sent, and where a new one is asked for. */
export interface ChallengeFlow {
  name: string;
  submitPath(agentId: string): string;
  requestPath(agentId: string): string;
}

export const claimFlow: ChallengeFlow = {
  name: 'claim challenge',
  submitPath: (id) => `/v1/agents/${id}/claim`,
  requestPath: (id) => `/v1/agents/${id}/claim/challenge`,
};

export const keyProofFlow: ChallengeFlow = {
  name: 'key challenge',
  submitPath: (id) => `/v1/agents/${id}/key-proof`,
  requestPath: (id) => `/v1/agents/${id}/key-challenge`,
};

export function createKeyChallenges(store: RegistryStore, clock: Clock) {
  return {
    /** A fresh nonce for the agent, replacing any earlier one, with instructions for `flow`. */
    async issue(agentId: string, registrationPubkey: string, flow: ChallengeFlow) {
      const nonce = randomBytes(32).toString('hex');
      const expiresAt = isoIn(clock, CHALLENGE_TTL_MS);
      await store.saveChallenge({ agent_id: agentId, nonce, expires_at: expiresAt, created_at: isoNow(clock) });
      return {
        agentId,
        nonce,
        expiresAt,
        instructions:
          `Sign the UTF-8 bytes of this nonce (the 64-character string itself) with the Ed25519 private key of ${registrationPubkey}, ` +
          `then POST ${flow.submitPath(agentId)} with {"signature": "<base64url signature>"} and your session token or API key ` +
          `before ${expiresAt}. A new challenge replaces this one; each challenge can be used once.`,
      };
    },

    /**
     * The nonce of `challenge`, once it is unexpired and `signatureText` verifies over it with the
     * registration key. Checked before the challenge is consumed, so a wrong signature cannot burn it.
     */
    signedNonce(agentId: string, challenge: ChallengeRow | undefined, registrationPubkey: string, signatureText: string, flow: ChallengeFlow): string {
      if (!challenge) throw badRequest(`No active ${flow.name}: request one with GET ${flow.requestPath(agentId)}`);
      if (Date.parse(challenge.expires_at) <= clock.now().getTime()) throw badRequest(`The ${flow.name} has expired: request a new one`);
      const signature = parseSignature(signatureText, 'signature');
      if (!verifyStrict(parsePublicKey(registrationPubkey).raw, Buffer.from(challenge.nonce, 'utf8'), signature)) {
        throw forbidden('The signature does not verify with the registration key');
      }
      return challenge.nonce;
    },
  };
}
