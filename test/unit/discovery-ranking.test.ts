import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLOSE_MATCH_SUPPORT,
  isWeakMatch,
  queryCoverage,
  relevanceOf,
  scoreOf,
  WEAK_MATCH_FLOOR,
  WORD_SIMILARITY,
  wordCoverage,
} from '../../src/modules/discovery/ranking.ts';
import { contentWords, spellingVariants, stem, wordsOf } from '../../src/lib/words.ts';
import { NEUTRAL_TRUST, trustFor, trustWithSample } from '../../src/modules/discovery/trust.ts';

describe('discovery: words', () => {
  it('cuts text into lowercase words without accents, possessives or stopwords', () => {
    assert.deepEqual(wordsOf("Brand's Café e-mail"), ['brand', 'cafe', 'e', 'mail']);
    assert.deepEqual(contentWords('I need someone to summarise my inbox every 2 days'), ['summarise', 'inbox', 'days']);
  });

  it('stems inflections and British spellings to one form', () => {
    for (const [a, b] of [
      ['parcels', 'parcel'],
      ['tracking', 'tracked'],
      ['summarise', 'summarize'],
      ['categories', 'category'],
      ['processes', 'process'],
    ]) {
      assert.equal(stem(a!), stem(b!), `${a} / ${b}`);
    }
    assert.notEqual(stem('news'), stem('new'));
  });

  it('offers the spellings a word table is likely to have', () => {
    assert.ok(spellingVariants('summarised').includes('summarized'));
    assert.ok(spellingVariants('shipped').includes('ship'));
    assert.ok(spellingVariants('colours').includes('color'));
  });
});

describe('discovery: trust and score', () => {
  const evidence = [
    { taskClass: 'code.review.pull_request', score: 0.9, receipts: 30 },
    { taskClass: 'email.digest', score: 0.2, receipts: 10 },
  ];

  it('uses the task classes the query is about, else all classes weighted by receipts, else neutral', () => {
    assert.equal(trustFor(evidence, new Set(['review'].map(stem))), 0.9);
    assert.equal(trustFor(evidence, new Set(['digest'])), 0.2);
    assert.equal(trustFor(evidence, new Set(['weather'])), (0.9 * 30 + 0.2 * 10) / 40);
    assert.equal(trustFor(undefined, new Set(['review'])), NEUTRAL_TRUST);
    assert.equal(trustFor([{ taskClass: 'a', score: 0.7, receipts: 0 }], new Set()), NEUTRAL_TRUST);
  });

  it('gives the number of receipts behind the trust it answers', () => {
    assert.deepEqual(trustWithSample(evidence, new Set(['review'].map(stem))), { trust: 0.9, receipts: 30 });
    assert.deepEqual(trustWithSample(evidence, new Set(['weather'])), { trust: (0.9 * 30 + 0.2 * 10) / 40, receipts: 40 });
    assert.deepEqual(trustWithSample(undefined, new Set()), { trust: NEUTRAL_TRUST, receipts: 0 });
  });

  it('lets trust and availability reorder close matches but not overturn a clearly better one', () => {
    assert.ok(scoreOf(0.5, 0.9, 'available') > scoreOf(0.5, 0.5, 'offline'));
    assert.ok(scoreOf(0.5, 0, 'offline') > scoreOf(0.34, 1, 'available'));
    assert.ok(Math.abs(scoreOf(1, 1, 'available') - 1) < 1e-9);
  });

  it('ranks an agent never heard from (unknown) below one away and above one offline, all else equal', () => {
    assert.ok(scoreOf(0.5, 0.5, 'away') > scoreOf(0.5, 0.5, 'unknown'));
    assert.ok(scoreOf(0.5, 0.5, 'unknown') > scoreOf(0.5, 0.5, 'offline'));
  });

  it('scales a full-text hit by how much of the query the agent has, so one incidental word counts little', () => {
    const stems = (text: string) => new Set(contentWords(text).map(stem));
    const query = stems('are we following european privacy law');
    assert.equal(queryCoverage(query, stems('Shipment Tracker: follows parcels across carriers')), 1 / 4);
    assert.equal(queryCoverage(stems('kubernetes operator'), stems('Kube Operator deploys services to Kubernetes clusters')), 1);
    assert.equal(queryCoverage(new Set(), stems('anything')), 0);
  });

  it('spreads the semantic weight over the other signals when the query could not be embedded', () => {
    assert.equal(relevanceOf(null, 1, 1), 1);
    assert.ok(relevanceOf(1, 0, 0) < 1);
  });
});

describe('discovery: embeddings configuration', () => {
  it('uses the built-in embedder unless EMBEDDINGS_URL and EMBEDDINGS_MODEL are both set', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config.ts');
    assert.equal(loadConfig({}).embeddings, null);
    assert.deepEqual(loadConfig({ EMBEDDINGS_URL: 'https://api.example.test/v1/', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_API_KEY: 'k' }).embeddings, {
      url: 'https://api.example.test/v1',
      model: 'm',
      apiKey: 'k',
    });
    for (const env of [
      { EMBEDDINGS_URL: 'https://api.example.test/v1' },
      { EMBEDDINGS_MODEL: 'm' },
      { EMBEDDINGS_API_KEY: 'k' },
      { EMBEDDINGS_URL: 'ftp://x', EMBEDDINGS_MODEL: 'm' },
    ]) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.problems.some((p) => p.includes('EMBEDDINGS_')),
      );
    }
  });
});

describe('discovery: weak matches', () => {
  const vector = Float32Array.of(1, 0);
  const words = [
    { stem: 'parcel', vector },
    { stem: 'quantum', vector },
    { stem: 'knit', vector: null },
  ];

  it('counts a query word as accounted for when the agent knows it or is close to it in meaning', () => {
    assert.equal(
      wordCoverage(
        words,
        (stem) => stem === 'parcel',
        () => 0,
      ),
      1 / 3,
    );
    assert.equal(
      wordCoverage(
        words,
        (stem) => stem === 'parcel',
        () => WORD_SIMILARITY,
      ),
      2 / 3,
      'a word without a vector is accounted for only by its spelling',
    );
    assert.equal(
      wordCoverage(
        [],
        () => false,
        () => 0,
      ),
      1,
    );
  });

  it('flags a result below the floor, and one that neither meaning nor the words support enough', () => {
    assert.equal(isWeakMatch(WEAK_MATCH_FLOOR - 0.001, 1, 1), true, 'below the floor, whatever else');
    assert.equal(isWeakMatch(WEAK_MATCH_FLOOR, CLOSE_MATCH_SUPPORT, 0), false, 'close in meaning');
    assert.equal(isWeakMatch(WEAK_MATCH_FLOOR, 0, CLOSE_MATCH_SUPPORT), false, 'accounts for the words');
    assert.equal(isWeakMatch(0.2, CLOSE_MATCH_SUPPORT - 0.11, 0), true, 'some similarity, none of the words: a nonsense request');
    assert.equal(isWeakMatch(0.2, CLOSE_MATCH_SUPPORT - 0.11, 0.25), false, 'the same similarity with one word of four');
  });
});
