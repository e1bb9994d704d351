import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentWords, foldText, identifierWords, isStopword, pluralStem, stem, wordsOf } from '../../src/lib/words.ts';

describe('words', () => {
  it('fold case, accents and the typographic apostrophe', () => {
    assert.equal(foldText('Café’s RÉSUMÉ'), "cafe's resume");
    assert.equal(foldText('Plain ASCII'), 'plain ascii');
  });

  it('split at anything but letters and digits, in any script, without possessives', () => {
    assert.deepEqual(wordsOf('Straße über node.js, v2 Brand’s'), ['straße', 'uber', 'node', 'js', 'v2', 'brand']);
    assert.deepEqual(wordsOf('Привет мир'), ['привет', 'мир']);
  });

  it('keep compounds whole when asked', () => {
    assert.deepEqual(wordsOf('Low-code CI/CD in C++ and C#, node.js', { compounds: true }), ['low-code', 'ci/cd', 'in', 'c++', 'and', 'c#', 'node.js']);
  });

  it('split identifiers', () => {
    assert.deepEqual(identifierWords('maxWordCount'), ['max', 'word', 'count']);
    assert.deepEqual(identifierWords('HTMLBody_text-size'), ['html', 'body', 'text', 'size']);
  });

  it('drop one stopword list and keep the words that carry meaning', () => {
    assert.ok(isStopword('the') && isStopword('need') && isStopword('many'));
    assert.deepEqual(contentWords('I need someone to track 3 parcels'), ['track', 'parcels']);
  });

  it('stem to a cut form, or to the singular word', () => {
    assert.equal(stem('summarising'), stem('summarize'));
    assert.equal(stem('parcels'), 'parcel');
    assert.equal(pluralStem('paragraphs'), 'paragraph');
    assert.equal(pluralStem('boxes'), 'box');
    assert.equal(pluralStem('categories'), 'category');
    assert.equal(pluralStem('summarize'), 'summarize');
  });
});
