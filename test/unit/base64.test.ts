import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decodeBase64Strict, encodeBase64, encodeBase64Url } from '../../src/lib/base64.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const decodesTo = (text: string, expected: string) => assert.deepEqual(decodeBase64Strict(text), Buffer.from(expected, 'latin1'), JSON.stringify(text));
const rejects = (text: string, expectedBytes?: number) => assert.equal(decodeBase64Strict(text, expectedBytes), null, JSON.stringify(text));

describe('decodeBase64Strict', () => {
  it('decodes padded and unpadded RFC 4648 test strings', () => {
    decodesTo('', '');
    decodesTo('Zg==', 'f');
    decodesTo('Zg', 'f');
    decodesTo('Zm8=', 'fo');
    decodesTo('Zm8', 'fo');
    decodesTo('Zm9v', 'foo');
    decodesTo('Zm9vYmFy', 'foobar');
    decodesTo('Zm9vYmE=', 'fooba');
    decodesTo('Zm9vYmE', 'fooba');
  });

  it('accepts either alphabet, padded or not, but not both alphabets at once', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf]);
    assert.deepEqual(decodeBase64Strict('+/+/'), bytes);
    assert.deepEqual(decodeBase64Strict('-_-_'), bytes);
    const two = Buffer.from([0xfb, 0xff]);
    for (const text of ['+/8=', '+/8', '-_8=', '-_8']) assert.deepEqual(decodeBase64Strict(text), two, text);
    for (const text of ['+_8=', '-/8', '+/-_', 'ab+c-d==']) rejects(text);
  });

  it('rejects wrong or misplaced padding', () => {
    for (const text of ['Zg=', 'Zg===', 'Zm8==', 'Zm9v=', 'Zm9v==', 'Zm9v====', '=', '==', '===', 'Zg==Zg==', 'Z=g=', 'Zm9vY===']) {
      rejects(text);
    }
  });

  it('rejects impossible lengths', () => {
    rejects('Z');
    rejects('Zm9vY');
    rejects('Zm9vY=');
  });

  it('rejects whitespace and stray characters', () => {
    for (const text of [' Zm9v', 'Zm9v ', 'Zm9v\n', 'Zm\n9v', 'Zm 9v', '\tZm9v', 'Zm9v!', 'Zm9v.', 'Zm9v\u0000', 'Zm9vé', 'Zm9v%3D', '\u00a0Zm9v']) {
      rejects(text);
    }
  });

  it('rejects non-zero unused trailing bits', () => {
    rejects('Zh==');
    rejects('Zh');
    rejects('Zm9=');
    rejects('Zm9');
    // 1 byte leaves 4 unused bits in the last character, 2 bytes leave 2: only 4 resp. 16 spellings are canonical.
    const accepted1 = [...ALPHABET].filter((c) => decodeBase64Strict(`Z${c}`) !== null);
    assert.deepEqual(accepted1, ['A', 'Q', 'g', 'w']);
    const accepted2 = [...ALPHABET].filter((c) => decodeBase64Strict(`Zm${c}`) !== null);
    assert.equal(accepted2.length, 16);
    for (const c of accepted2) assert.equal(ALPHABET.indexOf(c) % 4, 0);
  });

  it('checks the expected length', () => {
    const text = encodeBase64(Buffer.alloc(32, 7));
    assert.equal(decodeBase64Strict(text, 32)?.length, 32);
    rejects(text, 31);
    rejects(text, 33);
    rejects(encodeBase64(Buffer.alloc(31)), 32);
    rejects(encodeBase64(Buffer.alloc(33)), 32);
    assert.deepEqual(decodeBase64Strict('', 0), Buffer.alloc(0));
  });

  it('returns null for non-strings instead of throwing', () => {
    for (const value of [undefined, null, 42, {}, Buffer.from('Zm9v')]) {
      assert.equal(decodeBase64Strict(value as unknown as string), null);
    }
  });

  it('round-trips every spelling of random data', () => {
    for (let n = 0; n <= 70; n++) {
      const bytes = randomBytes(n);
      const std = encodeBase64(bytes);
      const url = encodeBase64Url(bytes);
      assert.equal(url.includes('='), false);
      const spellings = [std, std.replace(/=+$/, ''), url, url + '='.repeat((4 - (url.length % 4)) % 4)];
      for (const text of spellings) assert.deepEqual(decodeBase64Strict(text, n), bytes, text);
    }
  });

  it('encodes subarrays without reading outside them', () => {
    const whole = Buffer.from('xxfooxx');
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 2, 3);
    assert.equal(encodeBase64(view), 'Zm9v');
    assert.equal(encodeBase64Url(new Uint8Array([0xfb, 0xff])), '-_8');
  });
});
