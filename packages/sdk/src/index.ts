export { AgentryClient, retryAfterMs, type AgentryClientOptions, type components, type paths } from './client.ts';
export { AgentryError, AgentryNetworkError } from './errors.ts';
export {
  KeyFileError,
  agentSignatureHeader,
  generateKey,
  keyFromSeed,
  loadKey,
  parsePublicKey,
  publicKeyObject,
  publicKeyString,
  saveKey,
  signChallenge,
  signText,
  verifySignature,
} from './keys.ts';
export {
  RECEIPT_VERSION,
  buildReceipt,
  canonicalReceiptBytes,
  signReceipt,
  verifyReceipt,
  type Party,
  type ReceiptInput,
  type SignedReceipt,
  type UnsignedReceipt,
} from './receipts.ts';
export { WebhookVerificationError, readWebhookRequest, verifyWebhook, type TaskDelivery, type VerifyWebhookOptions, type WebhookResult } from './webhooks.ts';
export { AgentRunner, type AgentRunnerOptions, type TaskHandler } from './runner.ts';
