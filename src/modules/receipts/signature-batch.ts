/** The message a batch of verifications travels in between signature-verifier.ts and its workers. */
import { verifyStrict } from '../../lib/ed25519.ts';

/**
 * One buffer per batch, transferred rather than copied: n keys of 32 bytes, n signatures of 64,
 * then the messages back to back; `messageEnds[i]` is where message i ends.
 */
export interface VerifyBatch {
  id: number;
  count: number;
  bytes: Uint8Array<ArrayBuffer>;
  messageEnds: Uint32Array<ArrayBuffer>;
}

export interface VerifyVerdicts {
  id: number;
  verdicts: Uint8Array<ArrayBuffer>;
}

export function packBatch(id: number, items: { publicKey: Uint8Array; message: Uint8Array; signature: Uint8Array }[]): VerifyBatch {
  const count = items.length;
  let size = count * 96;
  for (const item of items) size += item.message.byteLength;
  const bytes = new Uint8Array(size);
  const messageEnds = new Uint32Array(count);
  let offset = count * 96;
  items.forEach((item, i) => {
    bytes.set(item.publicKey.subarray(0, 32), i * 32);
    bytes.set(item.signature.subarray(0, 64), count * 32 + i * 64);
    bytes.set(item.message, offset);
    offset += item.message.byteLength;
    messageEnds[i] = offset;
  });
  return { id, count, bytes, messageEnds };
}

export function verifyBatch({ count, bytes, messageEnds }: VerifyBatch): Uint8Array<ArrayBuffer> {
  const verdicts = new Uint8Array(count);
  let start = count * 96;
  for (let i = 0; i < count; i++) {
    const end = messageEnds[i]!;
    const publicKey = bytes.subarray(i * 32, i * 32 + 32);
    const signature = bytes.subarray(count * 32 + i * 64, count * 32 + i * 64 + 64);
    verdicts[i] = verifyStrict(publicKey, bytes.subarray(start, end), signature) ? 1 : 0;
    start = end;
  }
  return verdicts;
}
