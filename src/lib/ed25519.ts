/**
 * Ed25519 keys and strict verification.
 *
 * Verdicts follow ed25519-dalek's `verify_strict` (see shared/vectors/README.md): the cofactorless
 * equation, S < L, and neither the public key A nor the commitment R may be a small-order point.
 * libsodium (`sodium-native`) does the expensive part: it checks the same things and gives those
 * verdicts on all 1,065 shared vectors, at about twice the rate of node:crypto's OpenSSL on our machines
 * (docs/architecture.md). OpenSSL accepts small-order A and R and non-canonical A, so a key such as
 * the identity point verifies a forged signature on any message there (165 of the CCTV vectors).
 * The checks below run before libsodium anyway, so that the verdicts are ours and do not depend on
 * the library or its version: byte comparisons only, except for a one-off point decode per distinct
 * public key, whose verdict is cached.
 *
 * One deliberate difference from dalek: dalek decodes A leniently, so a non-canonical encoding
 * (y >= p) of a large-order point, e.g. y = p + 3, passes its checks; here every non-canonical A is
 * refused. Nobody knows the discrete log of such a point, so no honest signature is lost.
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import sodium from 'sodium-native';
import { decodeBase64Strict } from './base64.ts';
import { badRequest } from './errors.ts';

export const PUBLIC_KEY_PREFIX = 'ed25519:';

// DER headers that let node:crypto import raw Ed25519 keys (RFC 8410). The bench builds its
// node:crypto yardstick keys with the public one.
export const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** L, the prime order of the base point, little-endian like the S half of a signature. */
const GROUP_ORDER_LE = Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex');

/**
 * The y coordinates (sign bit cleared) of the eight points of order dividing 8: identity (y=1),
 * order 2 (y=p-1), order 4 (y=0) and the two y values of the four order-8 points. Every small-order
 * point has one of these y values, whatever its sign bit, so a canonical encoding is small-order
 * exactly when its low 255 bits are on this list. The unit tests re-derive the list from
 * @noble/curves' torsion subgroup.
 */
export const SMALL_ORDER_Y: readonly Buffer[] = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
].map((hex) => Buffer.from(hex, 'hex'));

/** y (sign bit ignored) >= p = 2^255 - 19, i.e. bytes ed..ff ff..ff 7f..ff. */
function isNonCanonicalY(bytes: Uint8Array, offset: number): boolean {
  if (((bytes[offset + 31] ?? 0) & 0x7f) !== 0x7f) return false;
  for (let i = 30; i >= 1; i--) if (bytes[offset + i] !== 0xff) return false;
  return (bytes[offset] ?? 0) >= 0xed;
}

function hasSmallOrderY(bytes: Uint8Array, offset: number): boolean {
  outer: for (const y of SMALL_ORDER_Y) {
    if (((bytes[offset + 31] ?? 0) & 0x7f) !== y[31]) continue;
    for (let i = 0; i < 31; i++) if (bytes[offset + i] !== y[i]) continue outer;
    return true;
  }
  return false;
}

/** S < L, compared as 256-bit little-endian numbers from the most significant byte down. */
function isCanonicalScalar(bytes: Uint8Array, offset: number): boolean {
  for (let i = 31; i >= 0; i--) {
    const s = bytes[offset + i] ?? 0;
    const l = GROUP_ORDER_LE[i] ?? 0;
    if (s !== l) return s < l;
  }
  return false; // S == L
}

/** Why 32 bytes are not an acceptable public key, or null when they are. */
function publicKeyProblem(raw: Uint8Array): string | null {
  if (raw.length !== 32) return 'must be 32 bytes';
  if (isNonCanonicalY(raw, 0)) return 'is a non-canonical point encoding';
  if (hasSmallOrderY(raw, 0)) return 'is a small-order point';
  let point;
  try {
    // zip215=false is the RFC 8032 decoding: y < p and no "negative zero" x.
    point = ed25519.Point.fromBytes(raw, false);
  } catch {
    return 'is not a point on the Ed25519 curve';
  }
  // The byte list above already covers this; the point check guards the list itself.
  if (point.isSmallOrder()) return 'is a small-order point';
  return null;
}

export interface PublicKey {
  raw: Buffer;
  /** `ed25519:` + standard padded base64, the one spelling stored and compared. */
  canonical: string;
}

export function formatPublicKey(raw: Uint8Array): string {
  return PUBLIC_KEY_PREFIX + Buffer.from(raw).toString('base64');
}

// Decoding the point to check its order costs more than a verification (~0.2 ms), and the same
// few keys arrive on every receipt, so verdicts (good or bad) are kept for the most recent keys.
const PARSED_KEY_CACHE_LIMIT = 10_000;
const parsedKeys = new Map<string, PublicKey | string>();

function parsePublicKeyOrProblem(text: unknown): PublicKey | string {
  if (typeof text !== 'string') return `must be a string '${PUBLIC_KEY_PREFIX}<base64 of 32 bytes>'`;
  if (text.length > 200) return `must be '${PUBLIC_KEY_PREFIX}' followed by the base64 or base64url encoding of exactly 32 bytes`;
  const known = parsedKeys.get(text);
  if (known !== undefined) return typeof known === 'string' ? known : { raw: Buffer.from(known.raw), canonical: known.canonical };
  const verdict = decodePublicKey(text);
  parsedKeys.set(text, verdict);
  if (parsedKeys.size > PARSED_KEY_CACHE_LIMIT) parsedKeys.delete(parsedKeys.keys().next().value as string);
  return verdict;
}

function decodePublicKey(text: string): PublicKey | string {
  if (!text.startsWith(PUBLIC_KEY_PREFIX)) return `must start with '${PUBLIC_KEY_PREFIX}'`;
  const raw = decodeBase64Strict(text.slice(PUBLIC_KEY_PREFIX.length), 32);
  if (!raw) return `must be '${PUBLIC_KEY_PREFIX}' followed by the base64 or base64url encoding of exactly 32 bytes`;
  const problem = publicKeyProblem(raw);
  if (problem) return problem;
  return { raw, canonical: formatPublicKey(raw) };
}

/**
 * Parses `ed25519:<base64>` (standard or URL-safe alphabet, padded or not) into a key that can
 * actually verify: a canonical encoding of a curve point that is not of small order. Throws a 400.
 */
export function parsePublicKey(text: unknown, field = 'pubkey'): PublicKey {
  const result = parsePublicKeyOrProblem(text);
  if (typeof result === 'string') throw badRequest(`${field} ${result}`);
  return result;
}

export function tryParsePublicKey(text: unknown): PublicKey | null {
  const result = parsePublicKeyOrProblem(text);
  return typeof result === 'string' ? null : result;
}

/** 64 signature bytes from base64 or base64url; whether they verify is verifyStrict's business. */
export function tryParseSignature(text: unknown): Buffer | null {
  return typeof text === 'string' ? decodeBase64Strict(text, 64) : null;
}

export function parseSignature(text: unknown, field = 'signature'): Buffer {
  const sig = tryParseSignature(text);
  if (!sig) throw badRequest(`${field} must be the base64 or base64url encoding of exactly 64 bytes`);
  return sig;
}

// The same few keys verify many receipts, and the point decode costs more than the verification
// itself. Only keys that passed publicKeyProblem are remembered. Map iteration order gives a cheap
// LRU: re-insert on hit, evict the first key.
const KEY_CACHE_LIMIT = 1000;
const acceptedKeys = new Map<string, true>();

function isAcceptedKey(raw: Uint8Array): boolean {
  const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  if (acceptedKeys.delete(id)) {
    acceptedKeys.set(id, true);
    return true;
  }
  if (publicKeyProblem(raw) !== null) return false;
  acceptedKeys.set(id, true);
  if (acceptedKeys.size > KEY_CACHE_LIMIT) {
    const oldest = acceptedKeys.keys().next();
    if (!oldest.done) acceptedKeys.delete(oldest.value);
  }
  return true;
}

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/**
 * Ed25519 verification with ed25519-dalek `verify_strict` verdicts. Returns false, never throws,
 * for anything that is not a valid signature, including malformed arguments.
 */
export function verifyStrict(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) return false;
  if (!(signature instanceof Uint8Array) || signature.length !== 64) return false;
  if (!(message instanceof Uint8Array)) return false;
  // libsodium rejects these too; checking here keeps the verdict independent of the library and its version.
  if (!isCanonicalScalar(signature, 32)) return false;
  // A non-canonical R can never equal the re-encoded R the equation yields; a small-order R OpenSSL would accept.
  if (isNonCanonicalY(signature, 0) || hasSmallOrderY(signature, 0)) return false;
  if (!isAcceptedKey(publicKey)) return false;
  try {
    return sodium.crypto_sign_verify_detached(asBuffer(signature), asBuffer(message), asBuffer(publicKey));
  } catch {
    return false; // only argument errors, which the checks above already exclude
  }
}

/** Seeds' key objects, newest last: parsing a key costs about ten times the signature it makes. */
const privateKeys = new Map<string, KeyObject>();
const PRIVATE_KEYS_KEPT = 256;

function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error('An Ed25519 seed is 32 bytes');
  const id = Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString('base64');
  let key = privateKeys.get(id);
  if (key) return key;
  key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  if (privateKeys.size >= PRIVATE_KEYS_KEPT) privateKeys.delete(privateKeys.keys().next().value!);
  privateKeys.set(id, key);
  return key;
}

/** Raw 32-byte public key of an RFC 8032 seed (tests, fixtures, CLI). */
export function publicKeyFromSeed(seed: Uint8Array): Buffer {
  const spki = createPublicKey(privateKeyFromSeed(seed)).export({ format: 'der', type: 'spki' });
  return spki.subarray(SPKI_PREFIX.length);
}

/** 64-byte Ed25519 signature; a string message is signed as its UTF-8 bytes. */
export function signMessage(seed: Uint8Array, message: Uint8Array | string): Buffer {
  const bytes = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
  return sign(null, bytes, privateKeyFromSeed(seed));
}
