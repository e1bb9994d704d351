/**
 * A2A 1.0 agent card signatures: a JWS (RFC 7515) with a detached payload, the payload being the
 * RFC 8785 (JCS) canonical form of the card without its `signatures` member. A2A 1.0 (section 8.4.1)
 * canonicalises the card as its schema reads it, without members that hold their default (empty)
 * value, which is what the A2A SDKs sign; a signature over the card exactly as served, without
 * `signatures`, is taken as well, as that form covers every member. Each signature is
 * `{ protected, signature, header? }`: the base64url protected header, the base64url signature over
 * `<protected>.<base64url(payload)>`, and optional unprotected header values.
 *
 * Only the pure parts live here (canonical form, signing, checking one signature against one JWK);
 * finding the key (the header's `jku` and `kid`) needs the network and is the registry's.
 */
import { canonicalizeAgentCard, type AgentCard } from '@a2a-js/sdk';
import { createHash, createPublicKey, verify as verifySignature, type JsonWebKey } from 'node:crypto';
import { publicKeyFromSeed, signMessage, verifyStrict } from './ed25519.ts';

/** RFC 8785: keys sorted by UTF-16 code units, numbers and strings as ECMAScript serialises them, no whitespace. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('JSON has no non-finite numbers');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    // The default sort compares UTF-16 code units, which is JCS's order.
    const keys = Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`;
  }
  throw new Error(`JSON has no ${typeof value}`);
}

/** The card as A2A 1.0 canonicalises it for signing: through its schema, defaults left out, no `signatures`. */
export const a2aCardPayload = (card: Record<string, unknown>): string => canonicalizeAgentCard(card as unknown as AgentCard);

/** The payloads a card's signature may cover: the A2A 1.0 form, then the card as served without `signatures`. */
export function cardPayloads(card: Record<string, unknown>): string[] {
  const payloads: string[] = [];
  try {
    payloads.push(a2aCardPayload(card));
  } catch {
    // A card the A2A schema cannot read has only the plain form.
  }
  const { signatures: _ignored, ...rest } = card;
  const plain = canonicalJson(rest);
  if (!payloads.includes(plain)) payloads.push(plain);
  return payloads;
}

const b64url = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

export interface CardSignature {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

/** An Ed25519 public key as a JWK, and its RFC 7638 thumbprint (a stable `kid`). */
export function ed25519Jwk(seed: Uint8Array): { jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string }; thumbprint: string } {
  const x = publicKeyFromSeed(seed).toString('base64url');
  // RFC 7638: the required members, in lexicographic order, no whitespace.
  const thumbprint = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  return { jwk: { kty: 'OKP', crv: 'Ed25519', x }, thumbprint };
}

/** Signs a card with an Ed25519 seed (alg EdDSA); the card's own `signatures` are not covered and are replaced. */
export function signCard<T extends Record<string, unknown>>(
  card: T,
  seed: Uint8Array,
  header: { kid: string; jku: string },
): T & { signatures: CardSignature[] } {
  const protectedHeader = b64url(JSON.stringify({ alg: 'EdDSA', typ: 'JOSE', kid: header.kid, jku: header.jku }));
  const signature = signMessage(seed, `${protectedHeader}.${b64url(a2aCardPayload(card))}`).toString('base64url');
  return { ...card, signatures: [{ protected: protectedHeader, signature }] };
}

/** The algorithms checked: EdDSA (Ed25519, also spelt `Ed25519` since RFC 9864) and ES256 (ECDSA P-256, SHA-256). */
export const CARD_SIGNATURE_ALGS = ['EdDSA', 'Ed25519', 'ES256'] as const;
export type CardSignatureAlg = (typeof CARD_SIGNATURE_ALGS)[number];

/**
 * Whether `signature` is `alg`'s signature by `jwk` over `signingInput`; a string saying why the key
 * cannot be used for it otherwise (a wrong signature is `false`).
 */
export function verifyWithJwk(alg: CardSignatureAlg, jwk: Record<string, unknown>, signingInput: string, signature: Buffer): boolean | string {
  if (jwk.use !== undefined && jwk.use !== 'sig') return `its "use" is ${JSON.stringify(jwk.use)}, not "sig"`;
  if (jwk.alg !== undefined && jwk.alg !== alg && !(isEd(alg) && isEd(jwk.alg))) return `it is for ${JSON.stringify(jwk.alg)}, not ${alg}`;
  const message = Buffer.from(signingInput, 'utf8');
  if (isEd(alg)) {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') return 'it is not an Ed25519 key (kty "OKP", crv "Ed25519", x)';
    const raw = /^[A-Za-z0-9_-]{43}$/.test(jwk.x) ? Buffer.from(jwk.x, 'base64url') : null;
    if (!raw || raw.length !== 32) return 'its "x" is not a 32-byte base64url value';
    return verifyStrict(raw, message, signature);
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string')
    return 'it is not a P-256 key (kty "EC", crv "P-256", x, y)';
  if (signature.length !== 64) return false;
  let key;
  try {
    key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } as JsonWebKey, format: 'jwk' });
  } catch {
    return 'its "x" and "y" are not a point on P-256';
  }
  try {
    return verifySignature('sha256', message, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}

function isEd(alg: unknown): boolean {
  return alg === 'EdDSA' || alg === 'Ed25519';
}
