/**
 * Nonces an agent's registration key signs to prove it is held: to claim a provisional agent, and for
 * the owner of an active agent to prove its key (docs/registry.md). Both flows share an agent's
 * challenges: an agent is either provisional or active, so they never overlap. Anyone may ask for a
 * claim challenge, so asking must not cancel the one the owner is signing: the few most recent stay
 * valid, any one of them proves the key once, and a proof spends them all.
 */
import { randomBytes } from 'node:crypto';
import { isoIn, isoNow, type Clock } from '../../lib/clock.ts';
import { badRequest, forbidden, type AppError } from '../../lib/errors.ts';
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
  /** How to ask for a new one: method and path. */
  request(agentId: string): string;
  /** The answer to a signature that verifies over no challenge: a refusal, or bad input where the key is the caller's own. */
  wrongSignature(message: string): AppError;
}

export const claimFlow: ChallengeFlow = {
  name: 'claim challenge',
  submitPath: (id) => `/v1/agents/${id}/claim`,
  // POST with a credential: a challenge issued to that account, which no one else's requests replace.
  request: (id) => `POST /v1/agents/${id}/claim/challenge`,
  wrongSignature: forbidden,
};

export const keyProofFlow: ChallengeFlow = {
  name: 'key challenge',
  submitPath: (id) => `/v1/agents/${id}/key-proof`,
  request: (id) => `GET /v1/agents/${id}/key-challenge`,
  wrongSignature: forbidden,
};

/** Setting a new key: the key is the one in the request, so a signature it does not verify is bad input. */
export const setKeyFlow: ChallengeFlow = {
  name: 'key challenge',
  submitPath: (id) => `/v1/agents/${id}/key`,
  request: keyProofFlow.request,
  wrongSignature: (message) => badRequest(message, [{ path: '/body/signature', message: 'does not verify with pubkey over an active key challenge' }]),
};

export function createKeyChallenges(store: RegistryStore, clock: Clock) {
  return {
    /**
     * A fresh nonce for the agent issued to `accountId` (null: to anyone), with instructions for
     * `flow` (for the key proof: how to prove the registration key, or without one how to set a key);
     * the oldest of more than LIVE_CHALLENGES valid ones issued to the same account is replaced.
     */
    async issue(agentId: string, accountId: string | null, registrationPubkey: string | null, flow: ChallengeFlow) {
      const nonce = randomBytes(32).toString('hex');
      const expiresAt = isoIn(clock, CHALLENGE_TTL_MS);
      await store.addChallenge(
        { agent_id: agentId, account_id: accountId, nonce, expires_at: expiresAt, created_at: isoNow(clock) },
        LIVE_CHALLENGES,
        KEPT_CHALLENGES,
      );
      return {
        agentId,
        nonce,
        expiresAt,
        instructions:
          (registrationPubkey
            ? `Sign the UTF-8 bytes of this nonce (the 64-character string itself) with the Ed25519 private key of ${registrationPubkey}, ` +
              `then POST ${flow.submitPath(agentId)} with {"signature": "<base64url signature>"} and your session token or API key ` +
              `before ${expiresAt}. `
            : '') +
          (flow === keyProofFlow
            ? `To ${registrationPubkey ? 'replace the key' : 'give the agent a registration key'}, sign the nonce with the new key's private key ` +
              `and PUT ${setKeyFlow.submitPath(agentId)} with {"pubkey": "ed25519:<base64>", "signature": "<base64url signature>"} before ${expiresAt}. `
            : '') +
          `The ${LIVE_CHALLENGES} most recent challenges ${accountId === null ? 'asked for without a credential' : 'issued to your account'} stay valid` +
          `${accountId === null ? '' : ' (only your account can use them)'}; whichever is signed can be used once, and using it spends them all.`,
      };
    },

    /**
     * The nonce of the valid challenge that `signatureText` signs with the registration key. Checked
     * before anything is spent, so a wrong signature cannot burn a challenge. A signature over a
     * replaced or expired challenge is told apart from a wrong one: 400 saying which, not 403.
     */
    signedNonce(agentId: string, challenges: ChallengeRow[], registrationPubkey: string, signatureText: string, flow: ChallengeFlow): string {
      if (challenges.length === 0) throw badRequest(`No active ${flow.name}: request one with ${flow.request(agentId)}`);
      const now = clock.now().getTime();
      const expired = (row: ChallengeRow) => Date.parse(row.expires_at) <= now;
      const valid = (row: ChallengeRow) => row.replaced_at === null && !expired(row);
      const signature = parseSignature(signatureText, 'signature');
      const key = parsePublicKey(registrationPubkey).raw;
      // Valid challenges first: the usual signature is found with one or two verifications.
      const ordered = [...challenges.filter(valid), ...challenges.filter((row) => !valid(row))];
      const signed = ordered.find((row) => verifyStrict(key, Buffer.from(row.nonce, 'utf8'), signature));
      if (signed && valid(signed)) return signed.nonce;
      if (signed && expired(signed)) throw badRequest(`The ${flow.name} you signed has expired: request a new one with ${flow.request(agentId)}`);
      if (signed) {
        throw badRequest(
          `The ${flow.name} you signed was replaced: only the ${LIVE_CHALLENGES} most recent stay valid, and more were requested since. ` +
            `Request a new one with ${flow.request(agentId)} and sign it`,
        );
      }
      if (!challenges.some(valid)) throw badRequest(`No active ${flow.name} (the last one expired): request one with ${flow.request(agentId)}`);
      throw flow.wrongSignature(`The signature does not verify with ${flow === setKeyFlow ? 'pubkey' : 'the registration key'} over any active ${flow.name}`);
    },
  };
}
