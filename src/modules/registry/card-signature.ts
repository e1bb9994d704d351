/**
 * Checks the A2A 1.0 signatures an agent card carries (docs/registry.md, "Signed cards"): each is a
 * JWS over the card's canonical form (src/lib/card-jws.ts) whose protected header names the key: its
 * `kid` in the JWK Set at its `jku`. The key set is fetched through the same outbound guard as the card
 * (no private addresses unless allowed, size and time limits, no redirects).
 */
import { CARD_SIGNATURE_ALGS, cardPayloads, verifyWithJwk, type CardSignatureAlg } from '../../lib/card-jws.ts';
import { publicFailureReason, type OutboundClient } from '../../lib/outbound-http.ts';
import { parseStrictJson } from '../../lib/strict-json.ts';

/** What the agent view shows of a card whose signature verified. */
export interface VerifiedCardSignature {
  verified: true;
  alg: CardSignatureAlg;
  kid: string;
  jku: string;
  checkedAt: string;
}

export type CardSignatureOutcome = { ok: true; signature: VerifiedCardSignature | null } | { ok: false; problem: string };

/** More than a handful of signatures on one card is no use to anyone and costs a key fetch each. */
const SIGNATURES_MAX = 5;
const HEADER_MAX = 4096;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface CardSignatureVerifier {
  /** The first signature's key, once every signature the card carries verifies; null for a card without signatures. */
  verify(card: Record<string, unknown>): Promise<CardSignatureOutcome>;
}

export function createCardSignatureVerifier(deps: { outbound: OutboundClient; allowPlainHttp: boolean; now(): string }): CardSignatureVerifier {
  async function keySet(jku: string): Promise<{ keys: Record<string, unknown>[] } | string> {
    const outcome = await deps.outbound.send({
      url: jku,
      method: 'GET',
      headers: { accept: 'application/jwk-set+json, application/json', 'user-agent': 'Agentry-Cards/1' },
      requireFullBody: true,
    });
    if (!outcome.ok) return `the key set could not be fetched: ${publicFailureReason(outcome.failure, `its jku ${jku}`, outcome.response)}`;
    let json: unknown;
    try {
      json = parseStrictJson(outcome.response.body);
    } catch {
      return `the key set at ${jku} is not JSON`;
    }
    if (!isObject(json) || !Array.isArray(json.keys)) return `the key set at ${jku} is not a JWK Set (no "keys" array)`;
    return { keys: json.keys.filter(isObject) };
  }

  async function verifyOne(payloads: string[], entry: unknown, index: number, sets: Map<string, Promise<Awaited<ReturnType<typeof keySet>>>>) {
    const which = `signature ${index + 1}`;
    if (!isObject(entry) || typeof entry.protected !== 'string' || typeof entry.signature !== 'string')
      return `${which} is not a JWS signature object ({ protected, signature, header? })`;
    if (entry.header !== undefined && !isObject(entry.header)) return `${which}'s "header" is not an object`;
    if (entry.protected.length > HEADER_MAX || !BASE64URL.test(entry.protected)) return `${which}'s protected header is not base64url`;
    if (!BASE64URL.test(entry.signature)) return `${which}'s signature is not base64url`;
    let header: unknown;
    try {
      header = parseStrictJson(Buffer.from(entry.protected, 'base64url').toString('utf8'));
    } catch {
      header = null;
    }
    if (!isObject(header)) return `${which}'s protected header is not a JSON object`;
    const alg = header.alg;
    if (!CARD_SIGNATURE_ALGS.includes(alg as CardSignatureAlg))
      return `${which} uses alg ${JSON.stringify(alg ?? null)}; the registry checks ${CARD_SIGNATURE_ALGS.join(', ')}`;
    // RFC 7515 4.1.11: a header parameter marked critical that is not understood makes the JWS invalid.
    if (header.crit !== undefined) return `${which} marks header parameters critical (crit), which the registry does not understand`;
    const kid = header.kid ?? entry.header?.kid;
    if (typeof kid !== 'string' || kid === '') return `${which} names no key: its header has no "kid"`;
    // The key's location must be signed: an unprotected jku could be swapped for any key set.
    const jku = header.jku;
    if (typeof jku !== 'string' || jku === '') return `${which}'s protected header has no "jku" (the URL of the JWK Set holding its key)`;
    let jkuUrl: URL;
    try {
      jkuUrl = new URL(jku);
    } catch {
      return `${which}'s jku is not a URL`;
    }
    if (jkuUrl.protocol !== 'https:' && !(deps.allowPlainHttp && jkuUrl.protocol === 'http:')) return `${which}'s jku ${jku} is not an https URL`;
    let set = sets.get(jku);
    if (!set) sets.set(jku, (set = keySet(jku)));
    const keys = await set;
    if (typeof keys === 'string') return `${which}: ${keys}`;
    const named = keys.keys.filter((key) => key.kid === kid);
    if (named.length === 0) return `${which}: the key set at ${jku} has no key with kid ${JSON.stringify(kid)}`;
    const signature = Buffer.from(entry.signature, 'base64url');
    const inputs = payloads.map((payload) => `${entry.protected}.${Buffer.from(payload, 'utf8').toString('base64url')}`);
    const reasons: string[] = [];
    for (const key of named) {
      let unusable: string | null = null;
      for (const input of inputs) {
        const verdict = verifyWithJwk(alg as CardSignatureAlg, key, input, signature);
        if (verdict === true) return { verified: true as const, alg: alg as CardSignatureAlg, kid, jku, checkedAt: deps.now() };
        if (typeof verdict === 'string') unusable = verdict;
      }
      if (unusable !== null) reasons.push(unusable);
    }
    if (reasons.length === named.length) return `${which}: the key ${JSON.stringify(kid)} at ${jku} cannot check it: ${reasons[0]}`;
    return `${which} does not verify with the key ${JSON.stringify(kid)} at ${jku} (the card or the signature was changed after signing)`;
  }

  return {
    async verify(card) {
      const signatures = card.signatures;
      if (signatures === undefined || signatures === null || (Array.isArray(signatures) && signatures.length === 0)) return { ok: true, signature: null };
      if (!Array.isArray(signatures)) return { ok: false, problem: '"signatures" is not an array' };
      if (signatures.length > SIGNATURES_MAX)
        return { ok: false, problem: `it carries ${signatures.length} signatures; at most ${SIGNATURES_MAX} are checked` };
      let payloads: string[];
      try {
        payloads = cardPayloads(card);
      } catch {
        return { ok: false, problem: 'it has no canonical JSON form' };
      }
      const sets = new Map<string, Promise<Awaited<ReturnType<typeof keySet>>>>();
      // Every signature must hold: a card carrying one that fails was changed, or signed by a key its signer does not publish.
      const verdicts = await Promise.all(signatures.map((entry, index) => verifyOne(payloads, entry, index, sets)));
      const failed = verdicts.find((verdict) => typeof verdict === 'string');
      if (failed !== undefined) return { ok: false, problem: failed };
      return { ok: true, signature: verdicts[0] as VerifiedCardSignature };
    },
  };
}
