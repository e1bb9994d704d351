import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lookalikeKeys, skeleton } from '../../src/lib/confusables.ts';
import { findHiddenCharacter } from '../../src/lib/visible-text.ts';

const alike = (a: string, b: string) => {
  const [x, y] = [lookalikeKeys(a), lookalikeKeys(b)];
  return x.asWritten === y.asWritten || x.lowercase === y.lowercase;
};

describe('lookalike keys', () => {
  it('follow UTS #39 skeletons', () => {
    assert.equal(skeleton('m'), 'rn');
    assert.equal(skeleton('0'), 'O');
    assert.equal(skeleton('1'), 'l');
    assert.equal(skeleton('I'), 'l');
    assert.equal(skeleton('\u0430\u0435\u043e\u0440\u0441\u0445\u0456'), 'aeopcxi');
    assert.equal(skeleton('\u03bf\u03bd'), 'ov');
    assert.equal(skeleton('a\u200bb'), 'ab');
  });

  it('match names that look alike', () => {
    const pairs: [string, string][] = [
      ['Inbox Summarizer', 'Inbox Summar\u0456zer'],
      ['Inbox Summarizer', 'inbox summar\u0456zer'],
      ['Inbox Summarizer', 'lnbox Summarizer'],
      ['Inbox Summarizer', 'INBOX-SUMMARIZER'],
      ['money', 'rnoney'],
      ['money', '\uff4doney'],
      ['BOT', 'B0T'],
      ['Bot', 'b0t'],
      ['Tool', 'Too1'],
      ['Novo', 'No\u03bd\u03bf'],
      ['Help Desk', 'Help   Desk!'],
    ];
    for (const [a, b] of pairs) assert.ok(alike(a, b), `${a} / ${b}`);
  });

  it('keep apart names whose letters differ in looks', () => {
    const pairs: [string, string][] = [
      ['Bill', 'Biii'],
      ['Novo', 'Nono'],
      ['Inbox Summarizer', 'Inbox Summarizers'],
      ['Bot \u0416', 'Bot \u0424'],
      ['Hindi \u0915\u094d\u0937', 'Hindi \u0915\u0937'],
    ];
    for (const [a, b] of pairs) assert.ok(!alike(a, b), `${a} / ${b}`);
  });
});

describe('hidden characters', () => {
  it('finds bidi controls, invisible characters and controls, with their position', () => {
    for (const codePoint of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c]) {
      assert.equal(findHiddenCharacter(`ab${String.fromCodePoint(codePoint)}c`)?.kind, 'bidirectional control', codePoint.toString(16));
    }
    for (const codePoint of [0x200b, 0x2060, 0xfeff, 0x00ad, 0x034f, 0x115f, 0x1160, 0x3164, 0xffa0, 0x180e, 0xe0001, 0xe0041, 0xe007f, 0x2800]) {
      assert.deepEqual(
        findHiddenCharacter(`ab${String.fromCodePoint(codePoint)}c`),
        { position: 2, codePoint, kind: 'invisible character' },
        codePoint.toString(16),
      );
    }
    for (const text of ['a\nb', 'a\tb', 'a\u0000b', 'a\u2028b', 'a\u0085b', 'a\ud800b'])
      assert.equal(findHiddenCharacter(text)?.kind, 'control character', JSON.stringify(text));
  });

  it('allows ZWJ between emoji and ZWJ/ZWNJ inside words of joining scripts, and nowhere else', () => {
    for (const text of [
      '\u{1f469}\u200d\u{1f4bb}',
      '\u{1f3f3}\ufe0f\u200d\u{1f308}',
      '\u{1f9d1}\u{1f3fd}\u200d\u{1f4bb}',
      '\u2764\ufe0f\u200d\u{1f525}',
      '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645',
      '\u0915\u094d\u200d\u0937',
      '\u0915\u094d\u200c\u0937',
      '\u0dc1\u0dca\u200d\u0dbb\u0dd3',
    ]) {
      assert.equal(findHiddenCharacter(text), null, JSON.stringify(text));
    }
    for (const text of [
      'a\u200db',
      'a\u200cb',
      '\u200d',
      '\u{1f469}\u200d',
      '\u200d\u{1f4bb}',
      '\u{1f469}\u200c\u{1f4bb}',
      '\u0645\u200c',
      '\u0645\u200cb',
      'a\u200c\u0645',
      '\u0915\u094d\u200d\u0645',
      '\u{1f469} \u200d\u{1f4bb}',
    ]) {
      assert.equal(findHiddenCharacter(text)?.kind, 'joiner out of place', JSON.stringify(text));
    }
  });

  it('allows a variation selector only right after what it selects', () => {
    for (const text of ['\u2764\ufe0f', '1\ufe0f\u20e3', '#\ufe0f\u20e3', '\u8fbb\u{e0100}', 'a\ufe0e'])
      assert.equal(findHiddenCharacter(text), null, JSON.stringify(text));
    for (const text of ['\ufe0f', ' \ufe0f', '\u2764\ufe0f\ufe0f', 'a\u0301\ufe0f', '\u{e0100}x']) {
      assert.equal(findHiddenCharacter(text)?.kind, 'variation selector out of place', JSON.stringify(text));
    }
  });
});
