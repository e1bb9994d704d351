import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { AppError } from '../../src/lib/errors.ts';
import {
  SMALL_ORDER_Y,
  formatPublicKey,
  parsePublicKey,
  parseSignature,
  publicKeyFromSeed,
  signMessage,
  tryParsePublicKey,
  tryParseSignature,
  verifyStrict,
} from '../../src/lib/ed25519.ts';

const readVectors = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/vectors/${name}`, import.meta.url), 'utf8'));

const hex = (text: string) => Buffer.from(text, 'hex');

interface WycheproofFile {
  numberOfTests: number;
  testGroups: { publicKey: { pk: string }; tests: { tcId: number; comment: string; msg: string; sig: string; result: string }[] }[];
}

interface CctvVector {
  number: number;
  key: string;
  sig: string;
  msg: string;
  flags: string[] | null;
}

interface ReceiptVectors {
  keys: Record<string, { seedHex: string; pubkey: string }>;
  claim: { nonce: string; pubkey: string; signatureBase64url: string };
}

// RFC 8032 section 7.1, test 1 (public test data).
const SEED_1 = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const PUB_1 = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const SIG_1 = hex('e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b');

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const leBytes = (n: bigint) => {
  const out = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
};
const leNumber = (bytes: Uint8Array) => bytes.reduceRight((acc, b) => (acc << 8n) | BigInt(b), 0n);
const withSign = (y: Uint8Array) => {
  const out = Buffer.from(y);
  out[31] = (out[31] ?? 0) | 0x80;
  return out;
};
const asKey = (raw: Uint8Array) => formatPublicKey(raw);

function assertBadRequest(fn: () => unknown, pattern?: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AppError, `expected AppError, got ${String(err)}`);
    assert.equal(err.code, 'BAD_REQUEST');
    assert.equal(err.status, 400);
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

describe('verifyStrict against the shared vectors', () => {
  it('gives the Wycheproof verdict for all 151 vectors', () => {
    const file = readVectors('wycheproof-ed25519.json') as WycheproofFile;
    let count = 0;
    const wrong: string[] = [];
    for (const group of file.testGroups) {
      const pk = hex(group.publicKey.pk);
      for (const t of group.tests) {
        count++;
        assert.ok(t.result === 'valid' || t.result === 'invalid', `tcId ${t.tcId}: result ${t.result}`);
        const verdict = verifyStrict(pk, hex(t.msg), hex(t.sig));
        if (verdict !== (t.result === 'valid')) wrong.push(`tcId ${t.tcId} (${t.comment}): got ${verdict}`);
      }
    }
    assert.equal(count, 151);
    assert.equal(file.numberOfTests, 151);
    assert.deepEqual(wrong, []);
  });

  it('gives the ed25519-dalek verify_strict verdict for all 914 CCTV vectors', () => {
    const vectors = readVectors('cctv-ed25519.json') as CctvVector[];
    assert.equal(vectors.length, 914);
    const harmless = new Set(['low_order_component_A', 'low_order_component_R']);
    const wrong: string[] = [];
    let accepted = 0;
    for (const v of vectors) {
      const expected = (v.flags ?? []).every((flag) => harmless.has(flag));
      // CCTV messages are text; their bytes are the UTF-8 encoding.
      const verdict = verifyStrict(hex(v.key), Buffer.from(v.msg, 'utf8'), hex(v.sig));
      if (expected) accepted++;
      if (verdict !== expected) wrong.push(`#${v.number} [${(v.flags ?? []).join(',')}]: got ${verdict}`);
    }
    assert.deepEqual(wrong, []);
    // Guards the expectation rule itself: 1 clean vector, 7 with a torsion component in A only, 35 in both.
    assert.equal(accepted, 43);
  });

  it('verifies the claim signature in receipts.json', () => {
    const { claim, keys } = readVectors('receipts.json') as ReceiptVectors;
    const key = parsePublicKey(claim.pubkey);
    const sig = parseSignature(claim.signatureBase64url);
    assert.equal(verifyStrict(key.raw, Buffer.from(claim.nonce, 'utf8'), sig), true);
    assert.equal(verifyStrict(key.raw, Buffer.from(claim.nonce + 'x', 'utf8'), sig), false);
    const other = Object.values(keys).find((k) => k.pubkey !== claim.pubkey);
    assert.ok(other);
    assert.equal(verifyStrict(parsePublicKey(other.pubkey).raw, Buffer.from(claim.nonce, 'utf8'), sig), false);
  });
});

describe('verifyStrict', () => {
  it('verifies RFC 8032 test 1 and rejects any changed bit', () => {
    assert.equal(verifyStrict(PUB_1, new Uint8Array(0), SIG_1), true);
    assert.equal(verifyStrict(PUB_1, new Uint8Array([0]), SIG_1), false);
    for (const i of [0, 31, 32, 63]) {
      const sig = Buffer.from(SIG_1);
      sig[i] = (sig[i] ?? 0) ^ 1;
      assert.equal(verifyStrict(PUB_1, new Uint8Array(0), sig), false, `bit flip in byte ${i}`);
    }
  });

  it('rejects S + L, the malleable twin of a valid signature', () => {
    const s = leNumber(SIG_1.subarray(32));
    const twin = Buffer.concat([SIG_1.subarray(0, 32), leBytes(s + L)]);
    assert.equal(verifyStrict(PUB_1, new Uint8Array(0), twin), false);
    assert.equal(verifyStrict(PUB_1, new Uint8Array(0), Buffer.concat([SIG_1.subarray(0, 32), leBytes(L)])), false);
  });

  it('rejects the identity-key forgery that bare OpenSSL accepts', () => {
    const identity = hex('0100000000000000000000000000000000000000000000000000000000000000');
    const forged = Buffer.concat([identity, Buffer.alloc(32)]);
    assert.equal(verifyStrict(identity, Buffer.from('any message at all'), forged), false);
  });

  it('returns false instead of throwing for malformed input', () => {
    const junk: unknown[] = [undefined, null, 'abc', 42, {}, [], new Uint8Array(31), new Uint8Array(33), new Uint8Array(0)];
    for (const value of junk) {
      assert.equal(verifyStrict(value as Uint8Array, new Uint8Array(0), SIG_1), false);
      assert.equal(verifyStrict(PUB_1, new Uint8Array(0), value as Uint8Array), false);
    }
    assert.equal(verifyStrict(PUB_1, 'not bytes' as unknown as Uint8Array, SIG_1), false);
    assert.equal(verifyStrict(PUB_1, new Uint8Array(0), new Uint8Array(64)), false);
    assert.equal(verifyStrict(hex('02' + '00'.repeat(31)), new Uint8Array(0), SIG_1), false); // not on the curve
    assert.equal(verifyStrict(hex('ff'.repeat(32)), new Uint8Array(0), SIG_1), false);
  });

  it('signs and verifies with seed helpers, also on subarray views', () => {
    assert.deepEqual(publicKeyFromSeed(SEED_1), PUB_1);
    assert.deepEqual(signMessage(SEED_1, new Uint8Array(0)), SIG_1);
    const sig = signMessage(SEED_1, 'héllo');
    assert.equal(verifyStrict(PUB_1, Buffer.from('héllo', 'utf8'), sig), true);
    const backing = Buffer.concat([Buffer.alloc(5, 0xaa), PUB_1, Buffer.alloc(5, 0xbb)]);
    assert.equal(verifyStrict(backing.subarray(5, 37), Buffer.from('héllo', 'utf8'), sig), true);
  });

  it('keeps verifying correctly past the key cache limit', () => {
    const seeds = Array.from({ length: 1100 }, (_, i) => {
      const seed = Buffer.alloc(32);
      seed.writeUInt32LE(i + 1);
      return seed;
    });
    const message = Buffer.from('cache');
    const entries = seeds.map((seed) => ({ pub: publicKeyFromSeed(seed), sig: signMessage(seed, message) }));
    for (const round of [0, 1]) {
      for (const [i, { pub, sig }] of entries.entries()) {
        assert.equal(verifyStrict(pub, message, sig), true, `round ${round}, key ${i}`);
        const other = entries[(i + 1) % entries.length];
        assert.ok(other);
        assert.equal(verifyStrict(pub, message, other.sig), false, `round ${round}, key ${i} with a foreign signature`);
      }
    }
  });
});

describe('small-order table', () => {
  it('matches the torsion subgroup of @noble/curves', () => {
    const masked = new Set(
      ED25519_TORSION_SUBGROUP.map((h) => {
        const b = hex(h);
        b[31] = (b[31] ?? 0) & 0x7f;
        return b.toString('hex');
      }),
    );
    assert.equal(ED25519_TORSION_SUBGROUP.length, 8);
    assert.deepEqual(new Set(SMALL_ORDER_Y.map((y) => y.toString('hex'))), masked);
  });

  it('covers every point of order dividing 8, with either sign bit', () => {
    const reached = new Set<string>();
    for (const y of SMALL_ORDER_Y) {
      for (const bytes of [y, withSign(y)]) {
        // ZIP-215 decoding accepts each of these ten spellings (x = 0 with the sign bit set included).
        const point = ed25519.Point.fromBytes(bytes, true);
        assert.equal(point.isSmallOrder(), true, bytes.toString('hex'));
        reached.add(point.toHex());
      }
    }
    assert.deepEqual(reached, new Set(ED25519_TORSION_SUBGROUP));
  });
});

describe('parsePublicKey', () => {
  const { keys } = readVectors('receipts.json') as ReceiptVectors;
  const keyB = keys.B?.pubkey ?? '';

  it('gives one canonical form for every allowed spelling', () => {
    assert.equal(keyB, 'ed25519:PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=');
    const b64 = keyB.slice('ed25519:'.length);
    const url = b64.replace(/\+/g, '-').replace(/\//g, '_');
    const spellings = [b64, b64.replace(/=+$/, ''), url, url.replace(/=+$/, '')];
    for (const text of spellings) {
      const key = parsePublicKey(`ed25519:${text}`);
      assert.equal(key.canonical, keyB, text);
      assert.deepEqual(key.raw, Buffer.from(b64, 'base64'));
      assert.equal(tryParsePublicKey(`ed25519:${text}`)?.canonical, keyB);
    }
    assert.deepEqual(parsePublicKey(asKey(PUB_1)).raw, PUB_1);
  });

  it('rejects non-strings and bad prefixes', () => {
    const b64 = keyB.slice('ed25519:'.length);
    for (const value of [undefined, null, 42, {}, PUB_1]) assertBadRequest(() => parsePublicKey(value), /pubkey must be a string/);
    for (const text of [b64, `ED25519:${b64}`, `Ed25519:${b64}`, `x25519:${b64}`, `ed25519 ${b64}`, `ed25519::${b64}`, ` ed25519:${b64}`, 'ed25519:']) {
      assertBadRequest(() => parsePublicKey(text));
      assert.equal(tryParsePublicKey(text), null, text);
    }
  });

  it('rejects whitespace, stray characters, mixed alphabets and wrong lengths', () => {
    const b64 = keyB.slice('ed25519:'.length);
    const bad = [
      `${keyB} `,
      `${keyB}\n`,
      `ed25519: ${b64}`,
      `ed25519:${b64.slice(0, 20)} ${b64.slice(20)}`,
      `ed25519:${b64.replace('+', '-')}`, // one '+' left: both alphabets
      `ed25519:${b64.replace('=', '==')}`,
      `ed25519:${b64.slice(0, -1)}!`,
      asKey(Buffer.alloc(31, 1)),
      asKey(Buffer.alloc(33, 1)),
      asKey(Buffer.alloc(64, 1)),
      asKey(PUB_1).slice(0, -2) + '=',
    ];
    for (const text of bad) {
      assertBadRequest(() => parsePublicKey(text), /exactly 32 bytes/);
      assert.equal(tryParsePublicKey(text), null, text);
    }
  });

  it('rejects a non-canonical base64 spelling of a valid key', () => {
    const canonical = asKey(PUB_1);
    assert.equal(canonical, 'ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=');
    assertBadRequest(() => parsePublicKey('ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURp='), /32 bytes/);
  });

  it('rejects small-order points', () => {
    const smallOrder = [
      ...ED25519_TORSION_SUBGROUP.map(hex),
      hex('0100000000000000000000000000000000000000000000000000000000000080'), // identity, "negative zero" x
      hex('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'),
    ];
    for (const raw of smallOrder) {
      assertBadRequest(() => parsePublicKey(asKey(raw)), /small-order/);
      assert.equal(verifyStrict(raw, new Uint8Array(0), SIG_1), false);
    }
    assertBadRequest(() => parsePublicKey(`ed25519:${'A'.repeat(43)}=`), /small-order/); // all zeros
    assertBadRequest(() => parsePublicKey(`ed25519:AQ${'A'.repeat(41)}`), /small-order/); // 0100..00, unpadded
  });

  it('rejects every non-canonical point encoding (y >= p), including ones of large-order points', () => {
    for (let y = P; y < 2n ** 255n; y++) {
      for (const raw of [leBytes(y), withSign(leBytes(y))]) {
        assertBadRequest(() => parsePublicKey(asKey(raw)), /non-canonical/);
        assert.equal(verifyStrict(raw, new Uint8Array(0), SIG_1), false);
      }
    }
    // y = p + 3 decodes (leniently) to the same large-order point as y = 3.
    const lenient = ed25519.Point.fromBytes(leBytes(P + 3n), true);
    assert.equal(lenient.isSmallOrder(), false);
    assert.equal(parsePublicKey(asKey(leBytes(3n))).canonical, asKey(lenient.toBytes()));
  });

  it('rejects encodings that are not curve points', () => {
    for (const raw of [leBytes(2n), leBytes(P - 2n), hex('ff'.repeat(31) + '00')]) {
      assertBadRequest(() => parsePublicKey(asKey(raw)), /not a point/);
    }
  });

  it('names the field in its messages', () => {
    assertBadRequest(() => parsePublicKey('nope', 'issuer.pubkey'), /^issuer\.pubkey /);
  });
});

describe('parseSignature', () => {
  const { claim } = readVectors('receipts.json') as ReceiptVectors;
  const sig = Buffer.from(claim.signatureBase64url, 'base64url');

  it('accepts base64url and base64, padded or not', () => {
    assert.equal(sig.length, 64);
    const std = sig.toString('base64');
    for (const text of [claim.signatureBase64url, `${claim.signatureBase64url}==`, std, std.replace(/=+$/, '')]) {
      assert.deepEqual(parseSignature(text), sig, text);
      assert.deepEqual(tryParseSignature(text), sig, text);
    }
  });

  it('rejects anything that is not 64 bytes of strict base64', () => {
    const mixed = claim.signatureBase64url.replace('-', '+');
    assert.match(mixed, /-/);
    assert.ok(claim.signatureBase64url.endsWith('Q'));
    const bad: unknown[] = [
      undefined,
      null,
      64,
      sig,
      '',
      sig.subarray(0, 63).toString('base64url'),
      Buffer.concat([sig, Buffer.alloc(1)]).toString('base64url'),
      ` ${claim.signatureBase64url}`,
      `${claim.signatureBase64url}\n`,
      `${claim.signatureBase64url}=`,
      mixed,
      claim.signatureBase64url.slice(0, -1) + 'R', // 'Q' -> 'R' sets an unused trailing bit
    ];
    for (const value of bad) {
      assertBadRequest(() => parseSignature(value), /64 bytes/);
      assert.equal(tryParseSignature(value), null, String(value));
    }
    assertBadRequest(() => parseSignature('x', 'signature.value'), /^signature\.value /);
  });
});
