/**
 * Scores the built-in extractor on the corpus of requests written without reading it
 * (test/fixtures/extraction/corpus.json), per half: `tune` is what the rules may be tuned on,
 * `holdout` what they are judged on.
 *
 *   node --import tsx bench/extraction.ts [--misses] [--half tune|holdout]
 *
 * A field counts as right when the input an agent would receive holds the expected value (a
 * stated value equal to the field's default counts as right when the default fills it). A wrong
 * value is one the extractor gave that differs from the expected one, or one given to a field the
 * request does not state (a default is not a value given). A request is fully right when all its
 * stated fields are right and nothing is wrong. Strings compare without regard to case, surrounding
 * whitespace and quotes, and trailing punctuation; a partial overlap ("my mentor Ahmed" for "Ahmed")
 * earns nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { InputSchema } from '../src/modules/registry/index.ts';
import { createBuiltinExtractor, type ExtractionResult, type InputValue } from '../src/modules/extraction/index.ts';
import { repoRoot } from './lib.ts';

export interface CorpusRequest {
  id: string;
  schema: string;
  text: string;
  expected: Record<string, InputValue>;
  half: 'tune' | 'holdout';
}
export interface Corpus {
  schemas: Record<string, InputSchema>;
  requests: CorpusRequest[];
}

export function loadCorpus(): Corpus {
  const raw = JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/extraction/corpus.json'), 'utf8')) as {
    schemas: Record<string, InputSchema | { inputSchema: InputSchema }> | { name: string; inputSchema: InputSchema }[];
    requests: CorpusRequest[];
  };
  const schemas: Record<string, InputSchema> = {};
  if (Array.isArray(raw.schemas)) for (const s of raw.schemas) schemas[s.name] = s.inputSchema;
  else
    for (const [name, s] of Object.entries(raw.schemas))
      schemas[name] = 'inputSchema' in s && typeof s.inputSchema === 'object' ? (s.inputSchema as InputSchema) : (s as InputSchema);
  return { schemas, requests: raw.requests };
}

export interface Score {
  requests: number;
  stated: number;
  right: number;
  fullyRight: number;
  wrong: number;
  refused: number;
}

export interface Verdict {
  right: string[];
  wrongValues: { field: string; got: InputValue; expected: InputValue | undefined }[];
  misses: string[];
}

/** Strings compare without regard to case, surrounding whitespace and quotes, and trailing punctuation; a partial overlap earns nothing. */
function same(got: InputValue | undefined, expected: InputValue | undefined): boolean {
  if (typeof got === 'string' && typeof expected === 'string') {
    const clean = (s: string) =>
      s
        .trim()
        .replace(/^["'“‘]+|["'”’]+$/g, '')
        .replace(/[.,;:!?]+$/, '')
        .trim()
        .toLowerCase();
    return clean(got) === clean(expected);
  }
  return got === expected;
}

export function judge(schema: InputSchema, expected: Record<string, InputValue>, result: ExtractionResult): Verdict {
  const verdict: Verdict = { right: [], wrongValues: [], misses: [] };
  for (const [field, definition] of Object.entries(schema)) {
    const got = result.input[field];
    const stated = Object.hasOwn(expected, field);
    const defaulted = got !== undefined && got === definition.default;
    if (stated && same(got, expected[field])) verdict.right.push(field);
    else if (stated && (got === undefined || defaulted)) verdict.misses.push(field);
    else if (got !== undefined && !defaulted) verdict.wrongValues.push({ field, got, expected: expected[field] });
  }
  return verdict;
}

export function add(score: Score, request: CorpusRequest, verdict: Verdict, result: ExtractionResult): void {
  score.requests++;
  score.stated += Object.keys(request.expected).length;
  score.right += verdict.right.length;
  score.wrong += verdict.wrongValues.length;
  if (verdict.misses.length === 0 && verdict.wrongValues.length === 0) score.fullyRight++;
  if (result.missing.length > 0) score.refused++;
}

const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);

async function main() {
  const args = process.argv.slice(2);
  const showMisses = args.includes('--misses');
  const onlyHalf = args.includes('--half') ? args[args.indexOf('--half') + 1] : undefined;
  const corpus = loadCorpus();
  const extractor = createBuiltinExtractor();
  const empty = (): Score => ({ requests: 0, stated: 0, right: 0, fullyRight: 0, wrong: 0, refused: 0 });
  const scores: Record<string, Score> = { tune: empty(), holdout: empty() };
  const started = performance.now();
  for (const request of corpus.requests) {
    const schema = corpus.schemas[request.schema];
    if (schema === undefined) throw new Error(`${request.id}: unknown schema ${request.schema}`);
    const result = await extractor.extract(schema, { description: request.text });
    const verdict = judge(schema, request.expected, result);
    add(scores[request.half] as Score, request, verdict, result);
    if (showMisses && (onlyHalf === undefined || onlyHalf === request.half) && (verdict.misses.length > 0 || verdict.wrongValues.length > 0)) {
      console.log(`\n${request.id} [${request.schema}] ${request.text}`);
      for (const field of verdict.misses) console.log(`  miss  ${field}: expected ${JSON.stringify(request.expected[field])}`);
      for (const w of verdict.wrongValues)
        console.log(`  WRONG ${w.field}: got ${JSON.stringify(w.got)}, expected ${w.expected === undefined ? 'nothing' : JSON.stringify(w.expected)}`);
    }
  }
  const elapsed = performance.now() - started;
  console.log(`\n${corpus.requests.length} requests over ${Object.keys(corpus.schemas).length} schemas, ${elapsed.toFixed(0)} ms\n`);
  console.log('| half | requests | fields right / stated | requests fully right | wrong values | refused (required missing) |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const [half, s] of Object.entries(scores)) {
    console.log(
      `| ${half} | ${s.requests} | ${s.right} / ${s.stated} (${pct(s.right, s.stated)}) | ${s.fullyRight} (${pct(s.fullyRight, s.requests)}) | ${s.wrong} | ${s.refused} |`,
    );
  }
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) await main();
