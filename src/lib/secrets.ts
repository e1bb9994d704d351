import { hash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/** A bearer secret: a recognisable prefix and 32 random bytes (256 bits), base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/**
 * Bearer secrets carry 256 bits of entropy, so a plain SHA-256 is enough to make a stolen table
 * useless, and it keeps every authenticated request to one indexed lookup. One-shot `hash()`
 * costs a third of `createHash()`, and this runs on every authenticated request.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'base64url');
}

/** scrypt's cost N for new password hashes: 2^15 (r=8, p=1) is OWASP's floor for scrypt, ~50 ms per hash on these machines. */
export const PASSWORD_COST = 32768;
const scryptParams = { r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Each hash records its own cost, so hashes made at any cost verify after the cost changes. */
export async function hashPassword(password: string, cost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize('NFKC'), salt, 32, { ...scryptParams, N: cost });
  return `scrypt$${cost}$${scryptParams.r}$${scryptParams.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltText, hashText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !hashText) return false;
  const expected = Buffer.from(hashText, 'base64url');
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(saltText, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: scryptParams.maxmem,
  });
  return timingSafeEqual(actual, expected);
}
