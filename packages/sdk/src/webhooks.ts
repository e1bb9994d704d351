/**
 * Standard Webhooks verification of task deliveries: `webhook-id`, `webhook-timestamp` (within a
 * tolerance), `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the
 * base64-decoded part of the agent's `whsec_` secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The task delivery payload the service sends (webhook body, and each item of a poll). */
export interface TaskDelivery {
  taskId: string;
  taskToken: string;
  title: string | null;
  description: string;
  input: unknown;
  callbackUrl: string;
  capabilities: string[];
  priority: string;
  expiresAt: string;
  timestamp: string;
  /** A task taken by long poll: when it goes back to the queue unless answered or its lease renewed (`renewTaskLease`) before. */
  leaseUntil?: string;
}

export interface VerifyWebhookOptions {
  secret: string;
  headers: Record<string, string | string[] | undefined> | Headers;
  /** The raw body exactly as received. */
  body: string | Uint8Array;
  toleranceSeconds?: number;
  now?: Date;
}

function header(headers: VerifyWebhookOptions['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

function secretBytes(secret: string): Buffer {
  const body = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length === 0) throw new WebhookVerificationError('the webhook secret is empty or not base64');
  return bytes;
}

/** Checks a delivery and returns the task it carries; throws `WebhookVerificationError` otherwise. */
export function verifyWebhook(options: VerifyWebhookOptions): TaskDelivery {
  const id = header(options.headers, 'webhook-id');
  const timestamp = header(options.headers, 'webhook-timestamp');
  const signatures = header(options.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not unix seconds');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : Buffer.from(options.body);
  const expected = createHmac('sha256', secretBytes(options.secret))
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]))
    .digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no webhook-signature matches');
  let delivery: unknown;
  try {
    delivery = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  const task = delivery as Partial<TaskDelivery> | null;
  if (!task || typeof task !== 'object' || typeof task.taskId !== 'string' || typeof task.taskToken !== 'string') {
    throw new WebhookVerificationError('the body is not a task delivery (no taskId and taskToken)');
  }
  return task as TaskDelivery;
}

export type WebhookResult = { ok: true; status: 204; id: string; delivery: TaskDelivery } | { ok: false; status: 400 | 401 | 405 | 413; error: string };

/**
 * Reads and verifies a Node `http` request. Framework-neutral: the caller writes `status` back
 * (2xx tells the service the delivery arrived) and handles `delivery` when `ok`.
 */
export async function readWebhookRequest(
  request: IncomingMessage,
  secret: string,
  options: { maxBytes?: number; toleranceSeconds?: number } = {},
): Promise<WebhookResult> {
  if (request.method !== 'POST') return { ok: false, status: 405, error: 'deliveries are POSTed' };
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return { ok: false, status: 413, error: 'body too large' };
    chunks.push(chunk as Buffer);
  }
  try {
    const delivery = verifyWebhook({
      secret,
      headers: request.headers,
      body: Buffer.concat(chunks),
      ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {}),
    });
    if (!delivery || typeof delivery !== 'object' || typeof (delivery as TaskDelivery).taskId !== 'string')
      return { ok: false, status: 400, error: 'not a task delivery' };
    return { ok: true, status: 204, id: String(request.headers['webhook-id']), delivery: delivery as TaskDelivery };
  } catch (error) {
    return { ok: false, status: 401, error: (error as Error).message };
  }
}
