/**
 * The vectors both kits (TypeScript and Python) must reproduce byte for byte: RFC 8785 canonical
 * forms, a key file, receipts signed by the TypeScript kit, a Standard Webhooks signature and an
 * X-Agent-Signature header. `node --import tsx scripts/sdk-interop-vectors.ts` rewrites
 * test/fixtures/vectors/sdk-interop.json; test/unit/sdk-interop-vectors.test.ts fails while the file
 * and what the TypeScript kit makes differ, and packages/python's tests read the same file.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import canonicalize from 'canonicalize';
import { agentSignatureHeader, buildReceipt, canonicalReceiptBytes, keyFromSeed, publicKeyString, signReceipt } from '../packages/sdk/src/index.ts';

const SEED_A = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const SEED_B = '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb';

/** JSON texts, parsed by each kit's own JSON reader before canonicalising: numbers, escapes, member order. */
const CANONICAL_INPUTS = [
  '{"b":2,"a":1,"c":{"z":[3,2,1],"y":null,"x":true,"w":false}}',
  '[1e21,1e20,1e-7,1e-6,0.000001,123456789012345680000,0.1,0.30000000000000004,-0,-1.5,4.35,1.5e300,5e-324,1.7976931348623157e308,9007199254740993,100,2e0,-1e-7]',
  '["\\u0000\\u0001\\u001f","\\b\\f\\n\\r\\t","\\"\\\\/","\\u007f\\u0080","\\u2028\\u2029","é€😀","\\ud800","\\udfff"]',
  '{"\\u20ac":"euro","\\r":"cr","1":"one","\\ud83d\\ude00":"emoji","\\ufb33":"hebrew","":"empty","a\\u0000":"nul","A":"upper","\\u00e9":"e-acute"}',
  '{"numbers":{"333333333.33333329":333333333.33333329,"1E30":1e30,"4.50":4.5,"2e-3":0.002,"0.000000000000000000000000001":1e-27},"literals":[null,true,false]}',
  '{}',
  '[]',
  '"plain"',
];

export function interopVectors(): Record<string, unknown> {
  const keyA = keyFromSeed(Buffer.from(SEED_A, 'hex'));
  const keyB = keyFromSeed(Buffer.from(SEED_B, 'hex'));
  const a = { agent: 'agent-a', pubkey: publicKeyString(keyA) };
  const b = { agent: 'agent-b', pubkey: publicKeyString(keyB) };
  const issuedAt = new Date('2026-11-01T10:00:00.000Z');
  const inputs = [
    { kind: 'offer' as const, taskClass: 'code.review', payload: { requiredScopes: ['repo:read'], promisedSlaMs: 60000 } },
    { kind: 'decision' as const, taskClass: 'code.review', payload: { decision: 'accept', reasonCode: 'fits', 'x-note': 'ünïcödé ✓ 😀' } },
    {
      kind: 'outcome' as const,
      taskClass: 'data.extract',
      payload: { outcome: 'partial', latencyMs: 1234, artifactHash: 'sha256:00ff', 'x-metrics': { ratio: 0.1, big: 1e21, tiny: 1e-7, list: [3, 1, 2] } },
    },
  ];
  const receipts = inputs.map((input, index) => {
    const signed = signReceipt(
      buildReceipt({
        ...input,
        issuer: a,
        subject: b,
        receiptId: `00000000-0000-4000-8000-00000000000${index}`,
        correlationId: '11111111-1111-4111-8111-111111111111',
        issuedAt,
      }),
      keyA,
    );
    return { receipt: signed, canonical: new TextDecoder().decode(canonicalReceiptBytes(signed)) };
  });
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const body = JSON.stringify({ taskId: 'task-1', taskToken: 'tok', input: { text: 'héllo' }, description: 'echo' });
  const timestamp = 1_800_000_000;
  return {
    about: 'Made by the TypeScript kit (scripts/sdk-interop-vectors.ts); the Python kit must reproduce each byte.',
    keys: {
      A: { seedHex: SEED_A, pubkey: a.pubkey, pkcs8Pem: keyA.export({ type: 'pkcs8', format: 'pem' }) },
      B: { seedHex: SEED_B, pubkey: b.pubkey },
    },
    canonical: CANONICAL_INPUTS.map((json) => ({ json, canonical: canonicalize(JSON.parse(json)) })),
    receipts,
    webhook: { secret, id: 'msg_interop', timestamp, body, signature: new Webhook(secret).sign('msg_interop', new Date(timestamp * 1000), body) },
    agentSignature: { agentId: 'agent-a', seconds: timestamp, header: agentSignatureHeader(keyA, 'agent-a', new Date(timestamp * 1000)) },
  };
}

export const interopVectorsFile = fileURLToPath(new URL('../test/fixtures/vectors/sdk-interop.json', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(interopVectorsFile, `${JSON.stringify(interopVectors(), null, 2)}\n`);
  console.log(`wrote ${interopVectorsFile}`);
}
