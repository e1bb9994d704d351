/**
 * Secrets the service must use later in the clear (an agent's A2A credential) are stored sealed with
 * AES-256-GCM under the operator's key (SECRETS_KEY). Each value is bound to what it belongs to
 * (the associated data, e.g. the agent id), so a sealed value copied onto another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;

export interface SecretBox {
  seal(plain: string, boundTo: string): string;
  /** Throws when the value was sealed under another key or for something else. */
  open(sealed: string, boundTo: string): string;
}

/** A 32-byte key from 64 hex digits or base64 (standard or URL-safe); null when the text is neither. */
export function parseSecretsKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === KEY_BYTES ? bytes : null;
}

/**
 * The key file a single-node install keeps beside its database when no SECRETS_KEY is set: created
 * with mode 0600 on first start, read on every later one.
 */
export function keyFromFile(path: string): { key: Buffer; created: boolean } {
  if (existsSync(path)) {
    const key = parseSecretsKey(readFileSync(path, 'utf8'));
    if (!key) throw new Error(`${path} does not hold a 32-byte key (64 hex digits or base64)`);
    return { key, created: false };
  }
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(KEY_BYTES);
  // 'wx': two processes starting at once cannot both write a key; the loser reads the winner's.
  try {
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return keyFromFile(path);
    throw error;
  }
  chmodSync(path, 0o600);
  return { key, created: true };
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error('the secrets key must be 32 bytes');
  return {
    seal(plain, boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(boundTo, 'utf8'));
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
    },
    open(sealed, boundTo) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(boundTo, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
