/**
 * The transparency-log module and the SDK's verifier against vectors made by Go's
 * golang.org/x/mod/sumdb/tlog and sumdb/note, the C2SP example formats, and properties over random
 * trees: every inclusion and consistency proof made verifies, and any flipped bit fails.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  EMPTY_ROOT,
  TlogVerificationError,
  appendToRange,
  rangeRoot,
  readEntryBundle,
  type CompactRange,
  checkConsistency,
  checkInclusion,
  hashLeaf,
  parseTlogProof,
  parseVerifierKey,
  verifyCheckpoint,
  verifyConsistency,
  verifyEntryProof,
  verifyNote,
} from '@agentry/sdk/tlog';
import { signNote, noteSigner } from '../../src/modules/tlog/keys.ts';
import {
  proveConsistency,
  proveInclusion,
  storedHashCount,
  storedHashesFor,
  tileExists,
  tileHashIndexes,
  treeHash,
  type HashReader,
} from '../../src/modules/tlog/merkle.ts';
import { formatTileIndex, parseTilePath } from '../../src/modules/tlog/tile-path.ts';
import { formatTlogProof, generateSignerKey, parseSignerKey, signerKeyText } from '@agentry/sdk/tlog';

interface Vectors {
  entryCount: number;
  leafHashes: Record<string, string>;
  roots: { size: number; root: string }[];
  inclusion: { index: number; size: number; proof: string[] }[];
  consistency: { from: number; to: number; proof: string[] }[];
  tiles: { level: number; index: number; width: number; bytes: number; sha256: string; firstHash: string; lastHash: string }[];
  signedNote: { seedHex: string; signerKey: string; verifierKey: string; text: string };
}
const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/tlog/tlog-vectors.json', import.meta.url), 'utf8')) as Vectors;
const b64 = (hash: Buffer) => hash.toString('base64');

/** An in-memory log: entries appended through the module's own stored-hash code. */
async function buildTree(entries: Buffer[]): Promise<{ hashes: Buffer[]; read: HashReader }> {
  const hashes: Buffer[] = [];
  const read: HashReader = async (indexes) =>
    indexes.map((index) => {
      const hash = hashes[index];
      if (!hash) throw new Error(`no stored hash ${index}`);
      return hash;
    });
  for (let n = 0; n < entries.length; n++) {
    assert.equal(hashes.length, storedHashCount(n));
    hashes.push(...(await storedHashesFor(n, hashLeaf(entries[n]!), read)));
  }
  return { hashes, read };
}

const leafEntries = (count: number) => Array.from({ length: count }, (_, i) => Buffer.from(`{"leaf":${i}}`, 'utf8'));

const flipBit = (bytes: Uint8Array, bit: number): Buffer => {
  const copy = Buffer.from(bytes);
  copy[Math.floor(bit / 8) % copy.length]! ^= 1 << (bit % 8);
  return copy;
};

describe('tlog: vectors made with Go sumdb/tlog and sumdb/note', async () => {
  const entries = leafEntries(vectors.entryCount);
  const tree = await buildTree(entries);

  it('leaf hashes and roots', async () => {
    for (const [index, hash] of Object.entries(vectors.leafHashes)) assert.equal(b64(hashLeaf(entries[Number(index)]!)), hash);
    for (const { size, root } of vectors.roots) assert.equal(b64(await treeHash(size, tree.read)), root, `root of ${size}`);
    assert.equal(b64(await treeHash(0, tree.read)), b64(createHash('sha256').digest()));
  });

  it("a monitor's right edge of the tree, grown leaf by leaf, gives Go's root at every size", () => {
    const roots = new Map(vectors.roots.map(({ size, root }) => [size, root]));
    let range: CompactRange = [];
    assert.equal(b64(rangeRoot(range)), b64(EMPTY_ROOT));
    entries.forEach((entry, i) => {
      range = appendToRange(range, hashLeaf(entry));
      const root = roots.get(i + 1);
      if (root) assert.equal(b64(rangeRoot(range)), root, `root of ${i + 1}`);
    });
  });

  it('entry bundles split back into their entries; a cut bundle is refused', () => {
    const bundle = Buffer.concat(entries.slice(0, 3).flatMap((entry) => [Buffer.of(entry.length >> 8, entry.length & 0xff), entry]));
    assert.deepEqual(readEntryBundle(bundle), entries.slice(0, 3));
    assert.throws(() => readEntryBundle(bundle.subarray(0, bundle.length - 1)), TlogVerificationError);
  });

  it('inclusion proofs are made as Go makes them and verify', async () => {
    for (const { index, size, proof } of vectors.inclusion) {
      const made = await proveInclusion(size, index, tree.read);
      assert.deepEqual(made.map(b64), proof, `inclusion of ${index} in ${size}`);
      const root = await treeHash(size, tree.read);
      assert.ok(checkInclusion(made, size, root, index, hashLeaf(entries[index]!)));
      assert.ok(!checkInclusion(made, size, root, index, hashLeaf(Buffer.from('other'))));
    }
  });

  it('consistency proofs are made as Go makes them and verify', async () => {
    for (const { from, to, proof } of vectors.consistency) {
      const made = await proveConsistency(to, from, tree.read);
      assert.deepEqual(made.map(b64), proof, `consistency ${from} -> ${to}`);
      assert.ok(checkConsistency(made, to, await treeHash(to, tree.read), from, await treeHash(from, tree.read)));
    }
  });

  it('tiles hold the bytes Go reads for them', () => {
    for (const tile of vectors.tiles) {
      assert.ok(tileExists(entries.length, tile.level, tile.index, tile.width));
      const bytes = Buffer.concat(tileHashIndexes(tile.level, tile.index, tile.width).map((index) => tree.hashes[index]!));
      assert.equal(bytes.length, tile.bytes);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), tile.sha256);
      assert.equal(b64(bytes.subarray(0, 32)), tile.firstHash);
      assert.equal(b64(bytes.subarray(-32)), tile.lastHash);
    }
  });

  it('signed note: our key formats and signature are byte for byte those of sumdb/note, and it verifies', () => {
    const { seedHex, signerKey, verifierKey, text } = vectors.signedNote;
    const signer = parseSignerKey(signerKey);
    assert.ok(signer);
    assert.equal(signer.seed.toString('hex'), seedHex);
    assert.equal(signer.verifierKey, verifierKey);
    assert.equal(signerKeyText(signer.name, Buffer.from(seedHex, 'hex')), signerKey);
    const made = generateSignerKey('example.org/log');
    assert.equal(parseSignerKey(made.signerKey)?.verifierKey, made.verifierKey);
    const body = text.slice(0, text.indexOf('\n\n') + 1);
    assert.equal(signNote(body, signer), text);
    const checkpoint = verifyCheckpoint(text, [verifierKey], 'example.com/agentry/receipts');
    assert.equal(checkpoint.size, 1000);
    assert.equal(b64(checkpoint.root), vectors.roots.find((root) => root.size === 1000)!.root);
    assert.equal(parseSignerKey(signerKey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')), null);
  });
});

describe('tlog: C2SP formats', () => {
  it('tile paths are written and read the one canonical way', () => {
    assert.equal(formatTileIndex(1234067), 'x001/x234/067');
    assert.equal(formatTileIndex(0), '000');
    assert.deepEqual(parseTilePath('0/x001/x234/067'), { level: 0, index: 1234067, width: 256 });
    assert.deepEqual(parseTilePath('entries/005.p/17'), { level: 'entries', index: 5, width: 17 });
    assert.deepEqual(parseTilePath('1/000.p/255'), { level: 1, index: 0, width: 255 });
    for (const bad of ['0/5', '0/x000/005', '0/000.p/256', '0/000.p/0', '0/000.p/07', '64/000', '01/000', 'entries/000/', '0/x1/000', '-1/000'])
      assert.equal(parseTilePath(bad), null, bad);
  });

  it('a proof in the tlog-proof@v1 text format reads back, with its extra line', () => {
    const text = formatTlogProof({ extra: Buffer.from('entry'), index: 3, proof: [EMPTY_ROOT], checkpoint: 'o\n4\nAAAA\n\n— o AAAA\n' });
    assert.match(text, /^c2sp\.org\/tlog-proof@v1\nextra ZW50cnk=\nindex 3\n47DEQpj8HBSa\+\/TImW\+5JCeuQeRkm5NMpJWZG3hSuFU=\n\no\n4\n/);
    const parsed = parseTlogProof(text);
    assert.equal(parsed.index, 3);
    assert.equal(parsed.extra?.toString(), 'entry');
    for (const bad of [text.replace('index 3', 'index 03'), text.replace('c2sp.org/tlog-proof@v1', 'c2sp.org/tlog-proof@v2'), text.replace('\n\n', '\n')])
      assert.throws(() => parseTlogProof(bad), TlogVerificationError);
  });

  it('verifier keys are checked: id, algorithm, name', () => {
    const key = vectors.signedNote.verifierKey;
    assert.equal(parseVerifierKey(key).name, 'example.com/agentry/receipts');
    for (const bad of [key.replace(/\+[0-9a-f]{8}\+/, '+00000000+'), key.replace(/\+A([^+]*)$/, '+B$1'), `a b${key}`, key.split('+').slice(0, 2).join('+')])
      assert.throws(() => parseVerifierKey(bad), TlogVerificationError, bad);
  });

  it('a note signed by no trusted key, or with a bad signature by one, fails', () => {
    const { text, verifierKey } = vectors.signedNote;
    const other = noteSigner('example.com/agentry/receipts', Buffer.alloc(32, 9));
    assert.throws(() => verifyNote(text, [other.verifierKey]), /no signature by a trusted key/);
    assert.throws(() => verifyNote(text.replace('\n1000\n', '\n1001\n'), [verifierKey]), /does not verify/);
  });
});

describe('tlog: properties over random trees', () => {
  it('inclusion holds for every index of random trees, and any flipped bit of leaf, proof or root fails', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 70 }), fc.nat(), async (size, bitSeed) => {
        const entries = Array.from({ length: size }, (_, i) => Buffer.from(`entry ${i} of ${size}`));
        const tree = await buildTree(entries);
        const root = await treeHash(size, tree.read);
        for (let index = 0; index < size; index++) {
          const proof = await proveInclusion(size, index, tree.read);
          const leaf = hashLeaf(entries[index]!);
          assert.ok(checkInclusion(proof, size, root, index, leaf));
          assert.ok(!checkInclusion(proof, size, root, index, flipBit(leaf, bitSeed % 256)));
          assert.ok(!checkInclusion(proof, size, flipBit(root, bitSeed % 256), index, leaf));
          if (proof.length > 0) {
            const at = bitSeed % proof.length;
            assert.ok(
              !checkInclusion(
                proof.map((hash, i) => (i === at ? flipBit(hash, bitSeed % 256) : hash)),
                size,
                root,
                index,
                leaf,
              ),
            );
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it('consistency holds for every pair of sizes, and any flipped bit fails', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.nat(), async (size, bitSeed) => {
        const tree = await buildTree(Array.from({ length: size }, (_, i) => Buffer.from(`c${i}`)));
        const roots = await Promise.all(Array.from({ length: size + 1 }, (_, n) => treeHash(n, tree.read)));
        for (let to = 1; to <= size; to++) {
          for (let from = 1; from <= to; from++) {
            const proof = await proveConsistency(to, from, tree.read);
            assert.ok(checkConsistency(proof, to, roots[to]!, from, roots[from]!), `${from} -> ${to}`);
            assert.ok(!checkConsistency(proof, to, flipBit(roots[to]!, bitSeed % 256), from, roots[from]!));
            assert.ok(!checkConsistency(proof, to, roots[to]!, from, flipBit(roots[from]!, bitSeed % 256)));
            if (proof.length > 0) {
              const at = bitSeed % proof.length;
              assert.ok(
                !checkConsistency(
                  proof.map((hash, i) => (i === at ? flipBit(hash, bitSeed % 256) : hash)),
                  to,
                  roots[to]!,
                  from,
                  roots[from]!,
                ),
              );
            }
          }
        }
      }),
      { numRuns: 15 },
    );
  });

  it('a proof file with any bit flipped in its entry, proof lines or checkpoint does not verify', async () => {
    const signer = noteSigner('example.org/log', Buffer.alloc(32, 3));
    const entries = leafEntries(21);
    const tree = await buildTree(entries);
    const root = await treeHash(21, tree.read);
    const checkpoint = signNote(`example.org/log\n21\n${b64(root)}\n`, signer);
    const proof = formatTlogProof({ extra: entries[13]!, index: 13, proof: await proveInclusion(21, 13, tree.read), checkpoint });
    assert.equal(verifyEntryProof(proof, { keys: [signer.verifierKey] }).index, 13);
    const bytes = Buffer.from(proof, 'utf8');
    await fc.assert(
      fc.property(fc.integer({ min: 0, max: bytes.length * 8 - 1 }), (bit) => {
        const flipped = flipBit(bytes, bit).toString('utf8');
        assert.throws(() => verifyEntryProof(flipped, { keys: [signer.verifierKey] }));
      }),
      { numRuns: 400 },
    );
  });

  it('verifyConsistency checks two signed checkpoints of the same log', async () => {
    const signer = noteSigner('example.org/log', Buffer.alloc(32, 3));
    const tree = await buildTree(leafEntries(30));
    const at = async (n: number) => signNote(`example.org/log\n${n}\n${b64(await treeHash(n, tree.read))}\n`, signer);
    const proof = (await proveConsistency(30, 11, tree.read)).map(b64);
    const result = verifyConsistency({ from: await at(11), to: await at(30), proof, keys: [signer.verifierKey] });
    assert.equal(result.to.size, 30);
    const wrongFrom = await at(12);
    assert.throws(() => verifyConsistency({ from: wrongFrom, to: result.to.note, proof, keys: [signer.verifierKey] }), TlogVerificationError);
    assert.deepEqual(verifyConsistency({ from: await at(30), to: await at(30), proof: [], keys: [signer.verifierKey] }).from.size, 30);
  });
});
