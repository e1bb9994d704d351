import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets the service must present to someone else (an agent's A2A credential) cannot be hashed, so
 * they are kept encrypted with SECRETS_KEY: AES-256-GCM, a fresh 96-bit nonce each, the agent id as
 * associated data so a sealed value copied onto another agent's row does not open.
 */
const VERSION = 'v1';

export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** null when the value was not sealed with this key for this context. */
  open(sealed: string, context: string): string | null;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    seal(plaintext, context) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, context) {
      const [version, nonceText, bodyText] = sealed.split('.');
      if (version !== VERSION || !nonceText || !bodyText) return null;
      const nonce = Buffer.from(nonceText, 'base64url');
      const body = Buffer.from(bodyText, 'base64url');
      if (nonce.length !== 12 || body.length < 16) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, nonce);
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(body.subarray(body.length - 16));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
