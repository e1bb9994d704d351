import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks (standardwebhooks.com) headers for one delivery attempt. The secret is
 * `whsec_<base64 key>`; the signature is HMAC-SHA256 over `<id>.<timestamp>.<body>`. The id stays
 * the same across retries of one delivery so receivers can drop duplicates.
 */
export function standardWebhookHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
