import { randomBytes, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => uuidPattern.test(value);

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Rows keyed by it land at the
 * end of their primary-key index instead of on a random page, so an insert dirties one hot page
 * rather than reading and rewriting a cold one. For high-volume append-only tables.
 */
export function newTimeOrderedId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
