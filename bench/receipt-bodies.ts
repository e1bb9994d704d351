/** Receipt request bodies for the receipt benches: new, validly signed outcome receipts from a few issuers. */
import { generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { formatPublicKey, publicKeyFromSeed, SPKI_PREFIX } from '../src/lib/ed25519.ts';
import { signedBytes } from '../src/modules/receipts/index.ts';

/** `count` JSON bodies for POST /v1/trust-receipts, each a different receipt from one of 8 issuers about one subject. */
export function makeReceipts(count: number): string[] {
  // Key objects made once: hundreds of thousands of receipts are signed before the run.
  const issuers = Array.from({ length: 8 }, (_, i) => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
    return { privateKey, agent: `issuer-${i}`, pubkey: formatPublicKey(raw) };
  });
  const subject = { agent: 'subject', pubkey: formatPublicKey(publicKeyFromSeed(randomBytes(32))) };
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const issuer = issuers[i % issuers.length] as (typeof issuers)[number];
    const unsigned = {
      kind: 'outcome',
      version: '2026-03-12',
      receiptId: randomUUID(),
      correlationId: randomUUID(),
      issuedAt: new Date().toISOString(),
      expiresAt: '2099-01-01T00:00:00Z',
      taskClass: 'code.review.pull_request',
      issuer: { agent: issuer.agent, pubkey: issuer.pubkey },
      subject,
      payload: { outcome: 'success', latencyMs: 420, artifactHash: `sha256:${randomBytes(32).toString('hex')}`, artifactUrl: 'https://example.com/a.json' },
    };
    const value = sign(null, signedBytes(unsigned), issuer.privateKey).toString('base64');
    bodies.push(JSON.stringify({ ...unsigned, signature: { alg: 'Ed25519', keyId: `${issuer.agent}#1`, value } }));
  }
  return bodies;
}
