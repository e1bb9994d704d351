/**
 * A transparency log: an origin, a signing key and entries, kept as an RFC 6962 tree of stored
 * hashes and published in the C2SP formats (checkpoints as signed notes, tiles, entry bundles,
 * c2sp.org/tlog-proof@v1 proofs). Appends happen inside the caller's transaction, so what is
 * logged commits together with the caller's record of having logged it.
 */
import { EMPTY_ROOT, checkConsistency, formatTlogProof, hashLeaf, parseSignedNote, parseVerifierKey } from '@agentry/sdk/tlog';
import type { Db, Tx } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { generateNoteSigner, noteSigner, signNote, type NoteSigner } from './keys.ts';
import {
  proveConsistency,
  proveInclusion,
  storedHashCount,
  storedHashesFor,
  tileExists,
  tileHashIndexes,
  treeHash,
  TILE_WIDTH,
  type HashReader,
} from './merkle.ts';
import { createTlogStore, type LogState } from './store.ts';

/** Entry bundles prefix each entry with a big-endian uint16 length (c2sp.org/tlog-tiles). */
export const MAX_ENTRY_BYTES = 0xffff;
/** How long a read checkpoint serves proofs before it is read again. */
const RECENT_MS = 1_000;

export interface TransparencyLogOptions {
  database: Db;
  dialect: DialectName;
  /** The log's short name, also the last segment of its origin. */
  name: string;
  /** The service's public URL: the origin is its host and path plus `/<name>`. */
  publicUrl: string;
  secrets: SecretBox;
  clock: Clock;
  /** A signing key given by the operator (LOG_SIGNING_KEY); without one, a key is made once and kept sealed. */
  signer: NoteSigner | null;
}

export function originFor(publicUrl: string, name: string): string {
  const url = new URL(publicUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/${name}`;
}

const checkpointText = (origin: string, size: number, root: Buffer) => `${origin}\n${size}\n${root.toString('base64')}\n`;
const sealedFor = (log: string, verifierKey: string) => `tlog-key:${log}:${verifierKey}`;

export function createTransparencyLog(options: TransparencyLogOptions) {
  const { database, name, clock, secrets } = options;
  const store = createTlogStore(database, options.dialect, name);
  let signer: NoteSigner | null = null;

  const activeSigner = (): NoteSigner => {
    if (!signer) throw new Error(`log ${name} is not started`);
    return signer;
  };

  /** The key that signs from now on: the configured one (retiring any other), the sealed one kept, or a new one. */
  async function settleKey(tx: Tx, origin: string): Promise<NoteSigner> {
    const now = clock.now().toISOString();
    const active = (await store.keys(tx)).find((key) => key.retiredAt === null);
    if (options.signer) {
      if (active?.verifierKey !== options.signer.verifierKey) await store.addKey(tx, options.signer.verifierKey, null, now);
      return options.signer;
    }
    if (active) {
      if (active.sealedSeed === null)
        throw new Error(`log ${name} is signed with a key given as LOG_SIGNING_KEY (${active.verifierKey}); set LOG_SIGNING_KEY again`);
      const seed = Buffer.from(secrets.open(active.sealedSeed, sealedFor(name, active.verifierKey)), 'base64');
      return noteSigner(parseVerifierKey(active.verifierKey).name, seed);
    }
    const made = generateNoteSigner(origin);
    await store.addKey(tx, made.verifierKey, secrets.seal(made.seed.toString('base64'), sealedFor(name, made.verifierKey)), now);
    return made;
  }

  let recent: { state: LogState; readAt: number } | null = null;
  /** The log's state as read at most RECENT_MS ago, or read now when that one does not hold entry `index`. */
  async function recentStateHolding(index: number): Promise<LogState> {
    if (recent && index < recent.state.size && performance.now() - recent.readAt < RECENT_MS) return recent.state;
    const state = await store.state();
    if (!state) throw new Error(`log ${name} is not started`);
    recent = { state, readAt: performance.now() };
    return state;
  }

  const signedByKey = (checkpoint: string, key: NoteSigner) =>
    parseSignedNote(checkpoint).signatures.some((signature) => signature.name === key.name && parseVerifierKey(key.verifierKey).keyId.equals(signature.keyId));

  /** A hash reader over the stored hashes plus those computed in this append and not yet written. */
  const readerWith =
    (tx: Tx, pending: Map<number, Buffer>): HashReader =>
    async (indexes) => {
      const missing = indexes.filter((index) => !pending.has(index));
      const stored = await store.readHashes(missing, tx);
      const fromStore = new Map(missing.map((index, i) => [index, stored[i]!]));
      return indexes.map((index) => pending.get(index) ?? fromStore.get(index)!);
    };

  return {
    name,

    /**
     * Readies the log on start: settles its key and, the first time, signs the empty tree, so the
     * checkpoint exists from the start. After a key change the current tree is signed again with the
     * new key (the same size and root: nothing inconsistent is ever signed).
     */
    async start(): Promise<void> {
      signer = await database.transaction().execute(async (tx) => {
        await store.lock(tx, true);
        const state = await store.state(tx);
        const origin = state?.origin ?? originFor(options.publicUrl, name);
        const key = await settleKey(tx, origin);
        const now = clock.now().toISOString();
        if (!state) await store.createLog(tx, origin, EMPTY_ROOT, signNote(checkpointText(origin, 0, EMPTY_ROOT), key), now);
        else if (!signedByKey(state.checkpoint, key))
          await store.saveCheckpoint(tx, state.size, state.root, signNote(checkpointText(origin, state.size, state.root), key), now);
        return key;
      });
    },

    /** The key that signs this log's checkpoints (after `start`). */
    signer: (): NoteSigner => activeSigner(),

    /**
     * Takes the log's append lock for this transaction. Without `wait`, answers false at once when
     * another node is appending (PostgreSQL); with it, waits for that node's transaction to end.
     */
    lock: (tx: Tx, wait: boolean): Promise<boolean> => store.lock(tx, wait),

    /**
     * Appends entries in order within the caller's transaction (which must hold `lock`), and signs
     * the new checkpoint. Refuses to sign a tree that is not consistent with the last signed one.
     * Answers the first new entry's index.
     */
    async append(tx: Tx, entries: Buffer[]): Promise<number> {
      const key = activeSigner();
      const state = await store.state(tx);
      if (!state) throw new Error(`log ${name} is not started`);
      const tooLong = entries.findIndex((entry) => entry.length > MAX_ENTRY_BYTES);
      if (tooLong >= 0) throw new Error(`log ${name}: an entry of ${entries[tooLong]!.length} bytes is longer than ${MAX_ENTRY_BYTES}`);
      if (entries.length === 0) return state.size;
      const pending = new Map<number, Buffer>();
      const read = readerWith(tx, pending);
      const firstHash = storedHashCount(state.size);
      let next = firstHash;
      for (let i = 0; i < entries.length; i++) {
        for (const hash of await storedHashesFor(state.size + i, hashLeaf(entries[i]!), read)) pending.set(next++, hash);
      }
      const size = state.size + entries.length;
      const root = await treeHash(size, read);
      const proof = await proveConsistency(size, state.size, read);
      if (!checkConsistency(proof, size, root, state.size, state.root))
        throw new Error(`log ${name}: refusing to sign size ${size}, which is not consistent with the signed size ${state.size}`);
      await store.insertEntries(tx, state.size, entries);
      await store.insertHashes(
        tx,
        firstHash,
        [...pending.keys()].sort((a, b) => a - b).map((index) => pending.get(index)!),
      );
      await store.saveCheckpoint(tx, size, root, signNote(checkpointText(state.origin, size, root), key), clock.now().toISOString());
      return state.size;
    },

    async checkpoint(): Promise<LogState> {
      const state = await store.state();
      if (!state) throw new Error(`log ${name} is not started`);
      return state;
    },

    /** A hash tile's bytes, or null when the tree has no such tile. */
    async tile(level: number, index: number, width: number): Promise<Buffer | null> {
      const { size } = await this.checkpoint();
      if (!tileExists(size, level, index, width)) return null;
      return Buffer.concat(await store.readHashes(tileHashIndexes(level, index, width)));
    },

    /** An entry bundle's bytes (each entry after its big-endian uint16 length), or null when the tree has no such bundle. */
    async entryBundle(index: number, width: number): Promise<Buffer | null> {
      const { size } = await this.checkpoint();
      if (!tileExists(size, 0, index, width)) return null;
      const entries = await store.readEntries(index * TILE_WIDTH, width);
      return Buffer.concat(entries.flatMap((entry) => [Buffer.of(entry.length >> 8, entry.length & 0xff), entry]));
    },

    /**
     * The c2sp.org/tlog-proof@v1 proof of entry `index`, the entry in its `extra` line (read from the
     * log unless the caller has it); null when not logged. The proof is against a checkpoint read at
     * most a second ago that holds the entry: any signed checkpoint proves it as well as the latest.
     */
    async inclusionProof(index: number, entry?: Buffer): Promise<string | null> {
      const state = await recentStateHolding(index);
      if (index >= state.size) return null;
      const [proof, logged] = await Promise.all([
        proveInclusion(state.size, index, (indexes) => store.readHashes(indexes)),
        entry ? Promise.resolve([entry]) : store.readEntries(index, 1),
      ]);
      return formatTlogProof({ extra: logged[0]!, index, proof, checkpoint: state.checkpoint });
    },

    /**
     * The c2sp.org/tlog-proof@v1 proofs of the entries at `indexes` (each carrying its entry), all
     * against the latest checkpoint, which holds them all; null for an index not logged yet.
     */
    async inclusionProofs(indexes: number[]): Promise<{ checkpoint: string; proofs: (string | null)[] }> {
      const state = await this.checkpoint();
      const read: HashReader = (wanted) => store.readHashes(wanted);
      const proofs = await Promise.all(
        indexes.map(async (index) => {
          if (index >= state.size) return null;
          const [proof, logged] = await Promise.all([proveInclusion(state.size, index, read), store.readEntries(index, 1)]);
          return formatTlogProof({ extra: logged[0]!, index, proof, checkpoint: state.checkpoint });
        }),
      );
      return { checkpoint: state.checkpoint, proofs };
    },

    /** The consistency proof between two sizes of the tree (sizes checked by the caller). */
    consistencyProof: (from: number, to: number): Promise<Buffer[]> => proveConsistency(to, from, (indexes) => store.readHashes(indexes)),

    /** Verifier keys, the active one first; retired ones stay listed so old checkpoints still verify. */
    async verifierKeys(): Promise<string[]> {
      return (await store.keys()).map((key) => key.verifierKey);
    },
  };
}

export type TransparencyLog = ReturnType<typeof createTransparencyLog>;
