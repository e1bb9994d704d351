/**
 * Ed25519 keys as the service expects them: PKCS#8 PEM private key files (mode 0600), public keys
 * spelled `ed25519:<base64 of the 32 raw bytes>`, claim signatures and the `X-Agent-Signature` header.
 * Node only (node:crypto, node:fs).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

export class KeyFileError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = 'KeyFileError';
    this.path = path;
  }
}

export function generateKey(): KeyObject {
  return generateKeyPairSync('ed25519').privateKey;
}

/** Writes the private key as PKCS#8 PEM, readable by its owner only; refuses to overwrite unless `overwrite`. */
export function saveKey(path: string, key: KeyObject, options: { overwrite?: boolean } = {}): void {
  const pem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
  try {
    writeFileSync(path, pem, { mode: 0o600, flag: options.overwrite ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyFileError(path, `${path} already exists; not overwriting a key`);
    throw new KeyFileError(path, `cannot write ${path}: ${(error as Error).message}`);
  }
  // The mode given to writeFileSync applies only to a new file, and is narrowed by the umask.
  if (process.platform !== 'win32') chmodSync(path, 0o600);
}

/**
 * Reads a PKCS#8 PEM Ed25519 private key. A key file that others can read is refused (on POSIX
 * systems) unless `allowInsecureMode`: whoever reads it can act as the agent.
 */
export function loadKey(path: string, options: { allowInsecureMode?: boolean } = {}): KeyObject {
  let text: string;
  try {
    if (process.platform !== 'win32' && !options.allowInsecureMode) {
      const mode = statSync(path).mode & 0o777;
      if (mode & 0o077) {
        throw new KeyFileError(path, `${path} is readable by others (mode ${mode.toString(8).padStart(4, '0')}); run chmod 600 ${path}`);
      }
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof KeyFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new KeyFileError(
      path,
      code === 'ENOENT' ? `no key file at ${path}; create one with \`agentry keygen\`` : `cannot read ${path}: ${(error as Error).message}`,
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    throw new KeyFileError(path, `${path} is not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new KeyFileError(path, `${path} holds a ${key.asymmetricKeyType} key, not Ed25519`);
  return key;
}

/** An Ed25519 private key from its 32-byte seed (for test vectors and keys kept elsewhere). */
export function keyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  const prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  return createPrivateKey({ key: Buffer.concat([prefix, seed]), format: 'der', type: 'pkcs8' });
}

/** `ed25519:<base64>` of the key's 32 raw public bytes. */
export function publicKeyString(key: KeyObject): string {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  return `ed25519:${Buffer.from(jwk.x as string, 'base64url').toString('base64')}`;
}

/** Decodes `ed25519:<base64|base64url>` strictly to 32 bytes; throws on anything else. */
export function parsePublicKey(value: string): Uint8Array {
  const match = /^ed25519:([A-Za-z0-9+/_-]+={0,2})$/.exec(value);
  if (!match) throw new Error('a public key is written ed25519:<base64>');
  const body = match[1]!.replace(/=+$/, '');
  const bytes = Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 32 || bytes.toString('base64').replace(/=+$/, '') !== body.replace(/-/g, '+').replace(/_/g, '/')) {
    throw new Error('an Ed25519 public key is exactly 32 bytes');
  }
  return bytes;
}

export function publicKeyObject(value: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(parsePublicKey(value)).toString('base64url') }, format: 'jwk' });
}

/** Signs UTF-8 bytes; base64url without padding. */
export function signText(key: KeyObject, text: string): string {
  return sign(null, Buffer.from(text, 'utf8'), key).toString('base64url');
}

/** The claim (and key proof) signature: over the UTF-8 bytes of the nonce string itself. */
export function signChallenge(key: KeyObject, nonce: string): string {
  return signText(key, nonce);
}

/** `X-Agent-Signature: <unix seconds>.<base64url signature over "<agentId>.<unix seconds>">`. */
export function agentSignatureHeader(key: KeyObject, agentId: string, now: Date = new Date()): string {
  const seconds = Math.floor(now.getTime() / 1000);
  return `${seconds}.${signText(key, `${agentId}.${seconds}`)}`;
}

/** Verifies an Ed25519 signature (base64 or base64url) over `bytes` with an `ed25519:` public key. */
export function verifySignature(pubkey: string, bytes: Uint8Array, signature: string): boolean {
  let publicKey: KeyObject;
  try {
    publicKey = publicKeyObject(pubkey);
  } catch {
    return false;
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(signature)) return false;
  const raw = Buffer.from(signature.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (raw.length !== 64) return false;
  return verify(null, bytes, publicKey, raw);
}
