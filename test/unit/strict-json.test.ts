import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStrictJson, StrictJsonError } from '../../src/lib/strict-json.ts';

describe('parseStrictJson', () => {
  it('agrees with JSON.parse on ordinary documents', () => {
    for (const text of [
      '{}',
      '[]',
      ' { "a" : [1, -2.5, 3e2, 0, -0.0001, true, false, null, "x\\u00e9\\n\\"y\\""], "b": {"c": {}} } ',
      '"just a string"',
      '9007199254740991',
      '-9007199254740991',
      '1.5e-7',
      '1234567890123456.5',
      '0.1',
      '-1.50e2',
      '1e21',
      '-0',
      '{"emoji":"\\ud83d\\ude00","raw":"😀"}',
      // What looks like keys and numbers inside strings is text, and sibling objects may share keys.
      '{"a":"{\\"a\\":1,\\"a\\":2}","b":"-99999999999999999999 1e999","c\\\\":"\\\\"}',
      '{"a":[{"b":1},{"b":1}],"b":{"a":{}},"c":[[],{}],"d":"x"}',
    ]) {
      assert.deepEqual(parseStrictJson(text), JSON.parse(text), text);
    }
  });

  it('refuses duplicate keys at any depth, including ones spelled with escapes', () => {
    for (const text of [
      '{"a":1,"a":2}',
      '{"x":{"a":1,"b":2,"a":3}}',
      '[{"k":1,"k":1}]',
      '{"a":1,"\\u0061":2}',
      '{"a\\\\":1,"a\\\\":2}',
      '{"o":{},"p":[{}],"o":1}',
    ]) {
      assert.throws(
        () => parseStrictJson(text),
        (error: unknown) => error instanceof StrictJsonError && /Duplicate key/.test(error.message),
        text,
      );
    }
  });

  it('names the duplicate key, wherever colons inside strings fall', () => {
    const text = '{"note":"a:b:c","list":[{"k":1},{"k":2,"x":":","k":3}],"z":{}}';
    assert.throws(
      () => parseStrictJson(text),
      (error: unknown) => error instanceof StrictJsonError && error.message.startsWith('Duplicate key "k" at position 47'),
    );
  });

  it('refuses numbers a double cannot hold exactly', () => {
    assert.throws(() => parseStrictJson('9007199254740992'), /2\^53/);
    assert.throws(() => parseStrictJson('{"n":-9007199254740993}'), /2\^53/);
    assert.throws(() => parseStrictJson('1e400'), /out of range/);
    assert.throws(() => parseStrictJson('1e-400'), /precision/);
    assert.deepEqual(parseStrictJson('[0.000, -0, 0e5]'), [0, -0, 0]);
    assert.throws(() => parseStrictJson('0.123456789012345678'), /precision/);
    assert.throws(() => parseStrictJson('1234567890123456.7'), /precision/);
    assert.throws(() => parseStrictJson('1.00000000000000001'), /precision/);
  });

  it('refuses what JSON refuses', () => {
    for (const text of [
      '',
      '{',
      '{"a":}',
      '{"a" 1}',
      '[1,]',
      '{"a":1,}',
      '01',
      '+1',
      '.5',
      '1.',
      'NaN',
      "'x'",
      '"\u0001"',
      '"\\x41"',
      '{} {}',
      'tru',
      '"unterminated',
    ]) {
      assert.throws(() => parseStrictJson(text), StrictJsonError, JSON.stringify(text));
    }
  });

  it('keeps __proto__ as data, never as a prototype', () => {
    const parsed = parseStrictJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
    assert.deepEqual(Object.keys(parsed), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('limits nesting depth, however deep the text goes', () => {
    assert.throws(() => parseStrictJson('['.repeat(100) + ']'.repeat(100)), /too deep/);
    // Deeper than a recursive walk of the parsed value survives: refused as JSON, not a crash.
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ]) {
      assert.throws(
        () => parseStrictJson(open!.repeat(10_000) + '1' + close!.repeat(10_000)),
        (error: unknown) => error instanceof StrictJsonError && /too deep/.test(error.message),
      );
    }
  });
});
