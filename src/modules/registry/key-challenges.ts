/**
 * Nonces an agent's registration key signs to prove it is held: to claim a provisional agent, and for
 * the owner of an active agent to prove its key (docs/registry.md). Both flows share an agent's
 * challenges: an agent is either provisional or active, so they never overlap. Anyone may ask for a
 * claim challenge, so asking must not cancel the one the owner is signing: the few most recent stay
 * valid, any one of them proves the key once, and a proof spends them all.
 */
import { randomBytes } from 'node:crypto';
import { isoIn, isoNow, type Clock } from '../../lib/clock.ts';
import { badRequest, forbidden } from '../../lib/errors.ts';
import { parsePublicKey, parseSignature, verifyStrict } from '../../lib/ed25519.ts';
import type { ChallengeRow, RegistryStore } from './store.ts';

const CHALLENGE_TTL_MS = 10 * 60 * 1000;
/** How many of an agent's most recent unexpired challenges are valid at once. */
export const LIVE_CHALLENGES = 5;
/** Challenges stored per agent, replaced and expired ones included, to answer a late signature with why. */
const KEPT_CHALLENGES = 25;

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
    /** A fresh nonce for the agent, with instructions for `flow`; the oldest of more than LIVE_CHALLENGES valid ones is replaced. */
    async issue(agentId: string, registrationPubkey: string, flow: ChallengeFlow) {
      const nonce = randomBytes(32).toString('hex');
      const expiresAt = isoIn(clock, CHALLENGE_TTL_MS);
      await store.addChallenge({ agent_id: agentId, nonce, expires_at: expiresAt, created_at: isoNow(clock) }, LIVE_CHALLENGES, KEPT_CHALLENGES);
      return {
        agentId,
        nonce,
        expiresAt,
        instructions:
          `Sign the UTF-8 bytes of this nonce (the 64-character string itself) with the Ed25519 private key of ${registrationPubkey}, ` +
          `then POST ${flow.submitPath(agentId)} with {"signature": "<base64url signature>"} and your session token or API key ` +
          `before ${expiresAt}. The ${LIVE_CHALLENGES} most recent challenges stay valid; whichever is signed can be used once, and using it spends them all.`,
      };
    },

    /**
     * The nonce of the valid challenge that `signatureText` signs with the registration key. Checked
     * before anything is spent, so a wrong signature cannot burn a challenge. A signature over a
     * replaced or expired challenge is told apart from a wrong one: 400 saying which, not 403.
     */
    signedNonce(agentId: string, challenges: ChallengeRow[], registrationPubkey: string, signatureText: string, flow: ChallengeFlow): string {
      if (challenges.length === 0) throw badRequest(`No active ${flow.name}: request one with GET ${flow.requestPath(agentId)}`);
      const now = clock.now().getTime();
      const expired = (row: ChallengeRow) => Date.parse(row.expires_at) <= now;
      const valid = (row: ChallengeRow) => row.replaced_at === null && !expired(row);
      const signature = parseSignature(signatureText, 'signature');
      const key = parsePublicKey(registrationPubkey).raw;
      // Valid challenges first: the usual signature is found with one or two verifications.
      const ordered = [...challenges.filter(valid), ...challenges.filter((row) => !valid(row))];
      const signed = ordered.find((row) => verifyStrict(key, Buffer.from(row.nonce, 'utf8'), signature));
      if (signed && valid(signed)) return signed.nonce;
      if (signed && expired(signed)) throw badRequest(`The ${flow.name} you signed has expired: request a new one with GET ${flow.requestPath(agentId)}`);
      if (signed) {
        throw badRequest(
          `The ${flow.name} you signed was replaced: only the ${LIVE_CHALLENGES} most recent stay valid, and more were requested since. ` +
            `Request a new one with GET ${flow.requestPath(agentId)} and sign it`,
        );
      }
      if (!challenges.some(valid)) throw badRequest(`No active ${flow.name} (the last one expired): request one with GET ${flow.requestPath(agentId)}`);
      throw forbidden(`The signature does not verify with the registration key over any active ${flow.name}`);
    },
  };
}
