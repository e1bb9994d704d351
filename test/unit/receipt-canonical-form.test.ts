import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import { signedBytes } from '../../src/modules/receipts/index.ts';

/** What the service canonicalises a receipt to before verifying its signature. */
const canonicalJson = (value: Record<string, unknown>) => signedBytes(value).toString('utf8');

describe('receipt canonical form (RFC 8785)', () => {
  it('sorts members by UTF-16 code units, as RFC 8785 section 3.2.3 shows', () => {
    const text =
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}';
    // The canonical text's own order is what counts (Object.keys would put "1" first whatever it says).
    const written = [...canonicalJson(JSON.parse(text)).matchAll(/"([^"]*)":"([^"]*)"/g)].map((m) => m[2]);
    assert.deepEqual(written, [
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
  });

  it('writes numbers and strings as RFC 8785 section 3.2.2 does', () => {
    const text =
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001,-0],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}';
    assert.equal(
      canonicalJson(JSON.parse(text)),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27,0],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('is the canonical form of every receipt vector without its signature member', () => {
    const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/receipts.json', import.meta.url), 'utf8')) as {
      receipts: { receipt: Record<string, unknown> }[];
    };
    assert.ok(vectors.receipts.length > 0);
    for (const { receipt } of vectors.receipts) {
      const { signature: _signature, ...signed } = receipt;
      assert.equal(canonicalJson(receipt), canonicalize(signed));
    }
  });

  it('leaves out undefined members and refuses numbers JSON cannot write', () => {
    assert.equal(canonicalJson({ b: 1, a: undefined, c: [undefined] }), '{"b":1,"c":[null]}');
    assert.throws(() => canonicalJson({ a: Number.NaN }));
    assert.throws(() => canonicalJson({ a: [Infinity] }));
  });
});
