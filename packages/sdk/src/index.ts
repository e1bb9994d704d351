export {
  AgentryClient,
  AgentryTimeoutError,
  FINAL_TASK_STATUSES,
  retryAfterMs,
  type AgentryClientOptions,
  type NonceSigner,
  type components,
  type paths,
} from './client.ts';
export type { AgentryEvent, ResetEvent, TaskStatusEvent } from './events.ts';
export { PagedList, type PageAnswer, type Paginated } from './paging.ts';
export { checkInput, inputSchema, type InputField, type InputOf, type InputSchema, type TypedInputSchema } from './input-schema.ts';
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
export { AgentRunner, AgentRunnerError, type AgentRunnerOptions, type TaskHandler } from './runner.ts';
export {
  EMPTY_ROOT,
  TlogVerificationError,
  checkConsistency,
  checkInclusion,
  formatTlogProof,
  generateSignerKey,
  hashChildren,
  hashLeaf,
  isNoteKeyName,
  noteKeyId,
  parseCheckpoint,
  parseSignedNote,
  parseSignerKey,
  parseTlogProof,
  parseVerifierKey,
  receiptLogEntry,
  signerKeyText,
  verifierKeyText,
  verifyCheckpoint,
  verifyConsistency,
  verifyEntryProof,
  verifyNote,
  verifyReceiptProof,
  type Checkpoint,
  type SignerKey,
  type TlogProof,
  type VerifiedEntryProof,
  type VerifierKey,
} from './tlog.ts';
