import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  agentCategorySlugs,
  capabilities,
  capabilityCategories,
  categoryCounts,
  expandCapabilityTerms,
  findCapability,
  loadCatalogue,
  normalizeCapabilityTerm,
} from '../../src/modules/catalog/capabilities.ts';

const AGENT_CATEGORIES = ['coding', 'data', 'devops', 'finance', 'health', 'legal', 'marketing', 'productivity', 'research', 'security', 'support', 'other'];

describe('capability catalogue: shape', () => {
  it('has at least 133 capabilities and exactly 29 categories', () => {
    assert.ok(capabilities.length >= 133, `only ${capabilities.length} capabilities`);
    assert.equal(capabilityCategories.length, 29);
  });

  it('category slugs and names are unique and well-formed', () => {
    const slugs = new Set<string>();
    const names = new Set<string>();
    for (const category of capabilityCategories) {
      assert.match(category.slug, /^[a-z0-9-]{1,40}$/, category.slug);
      assert.ok(category.name.trim().length > 0, `empty name for ${category.slug}`);
      assert.ok(!slugs.has(category.slug), `duplicate category slug ${category.slug}`);
      assert.ok(!names.has(category.name.toLowerCase()), `duplicate category name ${category.name}`);
      slugs.add(category.slug);
      names.add(category.name.toLowerCase());
    }
  });

  it('includes every agent category', () => {
    const slugs = new Set(capabilityCategories.map((c) => c.slug));
    for (const slug of AGENT_CATEGORIES) assert.ok(slugs.has(slug), `missing agent category ${slug}`);
    assert.deepEqual([...agentCategorySlugs].sort(), [...AGENT_CATEGORIES].sort());
  });

  it('capability slugs are unique and well-formed', () => {
    const seen = new Set<string>();
    for (const capability of capabilities) {
      assert.match(capability.slug, /^[a-z0-9]+(-[a-z0-9]+)*$/, capability.slug);
      assert.ok(capability.slug.length <= 60, `slug too long: ${capability.slug}`);
      assert.ok(!seen.has(capability.slug), `duplicate slug ${capability.slug}`);
      seen.add(capability.slug);
    }
  });

  it('capability names are unique (case-insensitively) and non-empty', () => {
    const seen = new Set<string>();
    for (const capability of capabilities) {
      const key = capability.name.trim().toLowerCase();
      assert.ok(key.length > 0, `empty name for ${capability.slug}`);
      assert.ok(!seen.has(key), `duplicate name ${capability.name}`);
      seen.add(key);
    }
  });

  it('every description is a single sentence', () => {
    for (const capability of capabilities) {
      const d = capability.description;
      assert.ok(d.length >= 20, `description too short for ${capability.slug}`);
      assert.match(d, /^[A-Z]/, `description of ${capability.slug} must start with a capital`);
      assert.match(d, /\.$/, `description of ${capability.slug} must end with a full stop`);
      assert.ok(!/[.!?]\s/.test(d), `description of ${capability.slug} has more than one sentence`);
    }
  });

  it("every capability's category exists", () => {
    const slugs = new Set(capabilityCategories.map((c) => c.slug));
    for (const capability of capabilities) {
      assert.ok(slugs.has(capability.category), `${capability.slug} has unknown category ${capability.category}`);
    }
  });

  it('every category has at least 3 capabilities', () => {
    for (const { slug, count } of categoryCounts()) {
      assert.ok(count >= 3, `category ${slug} has only ${count} capabilities`);
    }
  });
});

describe('capability catalogue: aliases', () => {
  it('each capability has 3-8 lowercase, trimmed, unique aliases', () => {
    for (const capability of capabilities) {
      const { aliases, slug } = capability;
      assert.ok(aliases.length >= 3 && aliases.length <= 8, `${slug} has ${aliases.length} aliases`);
      for (const alias of aliases) {
        assert.equal(alias, alias.toLowerCase(), `alias "${alias}" of ${slug} is not lowercase`);
        assert.equal(alias, alias.trim(), `alias "${alias}" of ${slug} is not trimmed`);
        assert.ok(!/\s{2,}/.test(alias), `alias "${alias}" of ${slug} has repeated spaces`);
        assert.ok(alias.length > 0 && alias.length <= 60, `alias "${alias}" of ${slug} has a bad length`);
      }
      assert.equal(new Set(aliases).size, aliases.length, `${slug} repeats an alias`);
    }
  });

  it("no alias equals another capability's slug", () => {
    const slugs = new Set(capabilities.map((c) => c.slug));
    const normalizedSlugs = new Map(capabilities.map((c) => [normalizeCapabilityTerm(c.slug), c.slug]));
    for (const capability of capabilities) {
      for (const alias of capability.aliases) {
        assert.ok(!slugs.has(alias) || alias === capability.slug, `alias "${alias}" of ${capability.slug} is a slug`);
        const owner = normalizedSlugs.get(normalizeCapabilityTerm(alias));
        assert.ok(owner === undefined || owner === capability.slug, `alias "${alias}" of ${capability.slug} normalizes to the slug ${owner}`);
      }
    }
  });

  it('no alias is shared between two capabilities', () => {
    const owners = new Map<string, string>();
    for (const capability of capabilities) {
      for (const alias of capability.aliases) {
        const previous = owners.get(alias);
        assert.ok(previous === undefined, `alias "${alias}" used by both ${previous} and ${capability.slug}`);
        owners.set(alias, capability.slug);
      }
    }
  });

  it('normalized slugs, names and aliases never collide across capabilities', () => {
    const owners = new Map<string, string>();
    for (const capability of capabilities) {
      for (const term of [capability.slug, capability.name, ...capability.aliases]) {
        const key = normalizeCapabilityTerm(term);
        assert.ok(key.length > 0, `term "${term}" of ${capability.slug} normalizes to nothing`);
        const previous = owners.get(key);
        assert.ok(previous === undefined || previous === capability.slug, `term "${term}" (${key}) is claimed by both ${previous} and ${capability.slug}`);
        owners.set(key, capability.slug);
      }
    }
  });

  it('every slug, name and alias resolves back to its own capability', () => {
    for (const capability of capabilities) {
      for (const term of [capability.slug, capability.name, ...capability.aliases]) {
        assert.equal(findCapability(term)?.slug, capability.slug, `"${term}" should resolve to ${capability.slug}`);
      }
    }
  });
});

describe('findCapability', () => {
  it('finds by slug', () => {
    assert.equal(findCapability('text-summarization')?.slug, 'text-summarization');
    assert.equal(findCapability('speech-to-text')?.name, 'Speech to Text');
  });

  it('finds by name, case-insensitively', () => {
    assert.equal(findCapability('Text Summarization')?.slug, 'text-summarization');
    assert.equal(findCapability('OPTICAL CHARACTER RECOGNITION')?.slug, 'optical-character-recognition');
    assert.equal(findCapability('ci/cd automation')?.slug, 'ci-cd-automation');
  });

  it('finds by alias', () => {
    assert.equal(findCapability('summarize')?.slug, 'text-summarization');
    assert.equal(findCapability('summarise')?.slug, 'text-summarization');
    assert.equal(findCapability('ocr')?.slug, 'optical-character-recognition');
    assert.equal(findCapability('TTS')?.slug, 'text-to-speech');
    assert.equal(findCapability('stt')?.slug, 'speech-to-text');
    assert.equal(findCapability('SEO')?.slug, 'seo-optimization');
    assert.equal(findCapability('summarise my inbox')?.slug, 'email-digest');
  });

  it('tolerates odd spacing, underscores and hyphens', () => {
    assert.equal(findCapability('  Text   Summarization  ')?.slug, 'text-summarization');
    assert.equal(findCapability('text_summarization')?.slug, 'text-summarization');
    assert.equal(findCapability('speech to text')?.slug, 'speech-to-text');
    assert.equal(findCapability('SPEECH__TO--TEXT')?.slug, 'speech-to-text');
    assert.equal(findCapability('\tsummarise   my-inbox\n')?.slug, 'email-digest');
  });

  it('returns undefined for unknown or empty terms', () => {
    assert.equal(findCapability('quantum teleportation'), undefined);
    assert.equal(findCapability(''), undefined);
    assert.equal(findCapability('   '), undefined);
  });
});

describe('expandCapabilityTerms', () => {
  it('expands a known term to the canonical slug plus all aliases', () => {
    const summarization = findCapability('text-summarization');
    assert.ok(summarization);
    const expected = ['text-summarization', ...summarization.aliases];
    assert.deepEqual(expandCapabilityTerms('text-summarization'), expected);
    assert.deepEqual(expandCapabilityTerms('Summarize'), expected);
    assert.deepEqual(expandCapabilityTerms('  TEXT_summarization '), expected);
    assert.ok(expandCapabilityTerms('text-summarization').includes('summarize'));
  });

  it('returns a fresh array each time', () => {
    const first = expandCapabilityTerms('ocr');
    first.push('mutated');
    assert.ok(!expandCapabilityTerms('ocr').includes('mutated'));
  });

  it('returns just the normalized term for an unknown term', () => {
    assert.deepEqual(expandCapabilityTerms('Quantum  Teleportation'), ['quantum-teleportation']);
    assert.deepEqual(expandCapabilityTerms('foo_bar'), ['foo-bar']);
  });
});

describe('categoryCounts', () => {
  it('lists every category once and sums to the total number of capabilities', () => {
    const counts = categoryCounts();
    assert.equal(counts.length, capabilityCategories.length);
    assert.deepEqual(
      counts.map((c) => c.slug),
      capabilityCategories.map((c) => c.slug),
    );
    assert.equal(
      counts.reduce((sum, c) => sum + c.count, 0),
      capabilities.length,
    );
    const coding = counts.find((c) => c.slug === 'coding');
    assert.equal(coding?.name, 'Coding & Software Development');
    assert.equal(coding?.count, capabilities.filter((c) => c.category === 'coding').length);
  });
});

describe('catalogue.json schema check', () => {
  const valid = { agentCategories: agentCategorySlugs, categories: capabilityCategories, capabilities };

  it('accepts the shipped catalogue', () => {
    assert.equal(loadCatalogue(valid).capabilities.length, capabilities.length);
  });

  it('refuses a malformed entry, naming where it is', () => {
    const broken = structuredClone(valid);
    broken.capabilities[3] = { ...broken.capabilities[3]!, slug: 'Not A Slug' };
    assert.throws(() => loadCatalogue(broken), /catalogue\.json does not match its schema at \/capabilities\/3\/slug/);
    assert.throws(() => loadCatalogue({ ...valid, extra: true }), /does not match its schema/);
    assert.throws(() => loadCatalogue({ ...valid, capabilities: [{ ...capabilities[0]!, aliases: ['one'] }] }), /\/capabilities\/0\/aliases/);
  });
});
