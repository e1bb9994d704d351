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

/**
 * Every header of a webhook delivery, as an agent's endpoint gets it and as a `listen` session hands
 * it on: one place, so a handler tested through `agentry listen` sees exactly what its endpoint will.
 */
export function webhookDeliveryHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Agentry-Webhooks/1',
    ...standardWebhookHeaders(secret, id, timestampSeconds, body),
  };
}
