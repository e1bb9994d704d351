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

// scrypt N=2^15, r=8, p=1: OWASP's floor for scrypt, ~50 ms per hash on these machines.
const scryptParams = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize('NFKC'), salt, 32, scryptParams);
  return `scrypt$${scryptParams.N}$${scryptParams.r}$${scryptParams.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
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

/** A hash to compare against when the account does not exist, so timing does not reveal which emails exist. */
export const dummyPasswordHash = await hashPassword('not-a-real-password');
