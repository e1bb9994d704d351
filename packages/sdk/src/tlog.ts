/**
 * Offline verification of transparency-log statements in the C2SP formats: RFC 6962 Merkle trees
 * (SHA-256), signed notes (c2sp.org/signed-note, Ed25519), checkpoints (c2sp.org/tlog-checkpoint)
 * and proofs (c2sp.org/tlog-proof@v1). The proof checks follow Go's golang.org/x/mod/sumdb/tlog.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';

export const HASH_SIZE = 32;
const ED25519_ALGORITHM = 0x01;
const PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

export class TlogVerificationError extends Error {
  override name = 'TlogVerificationError';
}

/** RFC 6962 leaf hash: SHA-256(0x00 || entry). */
export function hashLeaf(entry: Uint8Array): Buffer {
  return createHash('sha256').update(Buffer.of(0x00)).update(entry).digest();
}

/** RFC 6962 interior node hash: SHA-256(0x01 || left || right). */
export function hashChildren(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(Buffer.of(0x01)).update(left).update(right).digest();
}

/** The root of the empty tree: SHA-256 of no bytes. */
export const EMPTY_ROOT = createHash('sha256').digest();

/** The largest power of two strictly below n (n >= 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function runInclusion(proof: readonly Uint8Array[], lo: number, hi: number, index: number, leaf: Uint8Array): Buffer | null {
  if (lo + 1 === hi) return proof.length === 0 ? Buffer.from(leaf) : null;
  if (proof.length === 0) return null;
  const last = proof[proof.length - 1]!;
  const rest = proof.slice(0, -1);
  const k = splitPoint(hi - lo);
  if (index < lo + k) {
    const hash = runInclusion(rest, lo, lo + k, index, leaf);
    return hash && hashChildren(hash, last);
  }
  const hash = runInclusion(rest, lo + k, hi, index, leaf);
  return hash && hashChildren(last, hash);
}

/** Whether `proof` shows the leaf hash at `index` in the tree of `size` entries with root `root`. */
export function checkInclusion(proof: readonly Uint8Array[], size: number, root: Uint8Array, index: number, leafHash: Uint8Array): boolean {
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(index) || index < 0 || index >= size) return false;
  const computed = runInclusion(proof, 0, size, index, leafHash);
  return computed !== null && computed.equals(root);
}

function runConsistency(proof: readonly Uint8Array[], lo: number, hi: number, n: number, old: Uint8Array): [Buffer, Buffer] | null {
  if (n === hi) {
    if (lo === 0) return proof.length === 0 ? [Buffer.from(old), Buffer.from(old)] : null;
    return proof.length === 1 ? [Buffer.from(proof[0]!), Buffer.from(proof[0]!)] : null;
  }
  if (proof.length === 0) return null;
  const last = proof[proof.length - 1]!;
  const rest = proof.slice(0, -1);
  const k = splitPoint(hi - lo);
  if (n <= lo + k) {
    const hashes = runConsistency(rest, lo, lo + k, n, old);
    return hashes && [hashes[0], hashChildren(hashes[1], last)];
  }
  const hashes = runConsistency(rest, lo + k, hi, n, old);
  return hashes && [hashChildren(last, hashes[0]), hashChildren(last, hashes[1])];
}

/**
 * Whether `proof` shows the tree of `oldSize` entries (root `oldRoot`) is a prefix of the tree of
 * `newSize` entries (root `newRoot`). From the empty tree, or between equal sizes with equal roots,
 * the proof is empty.
 */
export function checkConsistency(proof: readonly Uint8Array[], newSize: number, newRoot: Uint8Array, oldSize: number, oldRoot: Uint8Array): boolean {
  if (!Number.isSafeInteger(newSize) || !Number.isSafeInteger(oldSize) || oldSize < 0 || oldSize > newSize) return false;
  if (oldSize === 0) return proof.length === 0;
  const hashes = runConsistency(proof, 0, newSize, oldSize, oldRoot);
  return hashes !== null && hashes[0].equals(oldRoot) && hashes[1].equals(newRoot);
}

/** A signed-note verifier key, `<name>+<8 hex key id>+<base64 of 0x01 || 32-byte Ed25519 key>`. */
export interface VerifierKey {
  name: string;
  keyId: Buffer;
  publicKey: Buffer;
  text: string;
}

/** The signed-note key id: the first 4 bytes of SHA-256(name || 0x0A || 0x01 || public key). */
export function noteKeyId(name: string, publicKey: Uint8Array, algorithm = ED25519_ALGORITHM): Buffer {
  return createHash('sha256')
    .update(Buffer.from(`${name}\n`, 'utf8'))
    .update(Buffer.of(algorithm))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

/** A key name: non-empty, no whitespace and no `+`. */
export const isNoteKeyName = (name: string): boolean => name.length > 0 && !/[\s+]/u.test(name);

/** The verifier key text for a name and a raw Ed25519 public key. */
export function verifierKeyText(name: string, publicKey: Uint8Array, algorithm = ED25519_ALGORITHM): string {
  return `${name}+${noteKeyId(name, publicKey, algorithm).toString('hex')}+${Buffer.concat([Buffer.of(algorithm), publicKey]).toString('base64')}`;
}

const strictBase64 = (text: string): Buffer | null => {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
};

export function parseVerifierKey(text: string, algorithm = ED25519_ALGORITHM): VerifierKey {
  // The base64 key may itself hold `+`: the name ends at the first one, the key id is the next 8 characters.
  const match = /^([^+]*)\+([^+]*)\+(.*)$/s.exec(text.trim());
  if (!match) throw new TlogVerificationError('a verifier key is <name>+<8 hex digits>+<base64 key>');
  const [, name, idHex, keyText] = match as unknown as [string, string, string, string];
  if (!isNoteKeyName(name)) throw new TlogVerificationError('the verifier key name is empty or holds spaces or +');
  const key = strictBase64(keyText);
  if (!/^[0-9a-f]{8}$/.test(idHex) || !key || key.length !== 33 || key[0] !== algorithm)
    throw new TlogVerificationError(
      algorithm === ED25519_ALGORITHM ? 'the verifier key is not an Ed25519 (type 0x01) key' : 'the witness key is not an Ed25519 cosignature (type 0x04) key',
    );
  const publicKey = key.subarray(1);
  const keyId = noteKeyId(name, publicKey, algorithm);
  if (keyId.toString('hex') !== idHex) throw new TlogVerificationError('the verifier key id does not match its name and key');
  return { name, keyId, publicKey, text: text.trim() };
}

const SIGNER_PREFIX = 'PRIVATE+KEY+';
const PKCS8_SEED_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const publicKeyOfSeed = (seed: Uint8Array): Buffer =>
  Buffer.from(
    createPublicKey(createPrivateKey({ key: Buffer.concat([PKCS8_SEED_PREFIX, seed]), format: 'der', type: 'pkcs8' })).export({ format: 'jwk' }).x as string,
    'base64url',
  );

/** A note signer: the key name, the 32-byte Ed25519 seed, and the verifier key that checks its signatures. */
export interface SignerKey {
  name: string;
  seed: Buffer;
  verifierKey: string;
}

/** The signer key text, `PRIVATE+KEY+<name>+<key id>+<base64 of 0x01 || seed>` (as Go's sumdb/note writes it). */
export function signerKeyText(name: string, seed: Uint8Array): string {
  const id = noteKeyId(name, publicKeyOfSeed(seed)).toString('hex');
  return `${SIGNER_PREFIX}${name}+${id}+${Buffer.concat([Buffer.of(ED25519_ALGORITHM), seed]).toString('base64')}`;
}

/** Reads a signer key; null when it is not one (wrong form or algorithm, or a key id that does not match). */
export function parseSignerKey(text: string): SignerKey | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith(SIGNER_PREFIX)) return null;
  // The base64 key may itself hold `+`: the name ends at the first one.
  const match = /^([^+]*)\+([^+]*)\+(.*)$/s.exec(trimmed.slice(SIGNER_PREFIX.length));
  if (!match) return null;
  const [, name, id, key] = match as unknown as [string, string, string, string];
  const bytes = strictBase64(key);
  if (!isNoteKeyName(name) || !bytes || bytes.length !== 33 || bytes[0] !== ED25519_ALGORITHM) return null;
  const seed = bytes.subarray(1);
  const publicKey = publicKeyOfSeed(seed);
  return noteKeyId(name, publicKey).toString('hex') === id ? { name, seed, verifierKey: verifierKeyText(name, publicKey) } : null;
}

/** A new random signing key for a log or witness named `name`: the signer key (keep it secret) and its verifier key. */
export function generateSignerKey(name: string): { signerKey: string; verifierKey: string } {
  if (!isNoteKeyName(name)) throw new TlogVerificationError('a key name is not empty and holds no spaces or +');
  const seed = randomBytes(32);
  return { signerKey: signerKeyText(name, seed), verifierKey: verifierKeyText(name, publicKeyOfSeed(seed)) };
}

const ed25519Key = (raw: Uint8Array): KeyObject =>
  createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });

export interface NoteSignature {
  name: string;
  keyId: Buffer;
  signature: Buffer;
}

/** Splits a signed note into its text (ending in a newline) and its signature lines; throws when malformed. */
export function parseSignedNote(note: string): { text: string; signatures: NoteSignature[] } {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new TlogVerificationError('a signed note is text, an empty line and signature lines');
  const text = note.slice(0, split + 1);
  // eslint-disable-next-line no-control-regex -- the rule itself: no control characters but newlines
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/u.test(note)) throw new TlogVerificationError('a signed note holds no control characters but newlines');
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > 100) throw new TlogVerificationError('a signed note has at most 100 signatures');
  const signatures = lines.map((line) => {
    const match = /^\u2014 (\S+) (\S+)$/u.exec(line);
    const bytes = match ? strictBase64(match[2]!) : null;
    if (!match || !bytes || bytes.length < 5 || !isNoteKeyName(match[1]!)) throw new TlogVerificationError(`malformed signature line: ${JSON.stringify(line)}`);
    return { name: match[1]!, keyId: bytes.subarray(0, 4), signature: bytes.subarray(4) };
  });
  return { text, signatures };
}

/**
 * Verifies a signed note against trusted keys: at least one signature must be by one of them, and
 * every signature by a known key (same name and key id) must verify. Answers the note's text and
 * the keys that signed it.
 */
export function verifyNote(note: string, keys: readonly (VerifierKey | string)[]): { text: string; signedBy: VerifierKey[] } {
  const trusted = keys.map((key) => (typeof key === 'string' ? parseVerifierKey(key) : key));
  const { text, signatures } = parseSignedNote(note);
  const signedBy: VerifierKey[] = [];
  for (const signature of signatures) {
    const key = trusted.find((candidate) => candidate.name === signature.name && candidate.keyId.equals(signature.keyId));
    if (!key) continue;
    if (signature.signature.length !== 64 || !verify(null, Buffer.from(text, 'utf8'), ed25519Key(key.publicKey), signature.signature))
      throw new TlogVerificationError(`the signature by ${key.name} does not verify`);
    signedBy.push(key);
  }
  if (signedBy.length === 0) throw new TlogVerificationError('the note carries no signature by a trusted key');
  return { text, signedBy };
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  /** Lines after the root hash (extension lines), without their newlines. */
  extensions: string[];
}

/** Reads a checkpoint body: `<origin>\n<size>\n<base64 root>\n` and optional extension lines. */
export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  if (lines.length < 4 || lines[lines.length - 1] !== '') throw new TlogVerificationError('a checkpoint is origin, size and root hash, one per line');
  const [origin, sizeText, rootText] = lines as [string, string, string];
  const root = strictBase64(rootText);
  if (origin === '' || !/^(0|[1-9][0-9]{0,15})$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText)) || !root || root.length !== HASH_SIZE)
    throw new TlogVerificationError('malformed checkpoint');
  const extensions = lines.slice(3, -1);
  if (extensions.some((line) => line === '')) throw new TlogVerificationError('a checkpoint has no empty lines');
  return { origin, size: Number(sizeText), root, extensions };
}

/** Verifies a signed checkpoint against trusted keys; with `origin`, the checkpoint must be that log's. */
export function verifyCheckpoint(note: string, keys: readonly (VerifierKey | string)[], origin?: string): Checkpoint & { note: string } {
  const { text } = verifyNote(note, keys);
  const checkpoint = parseCheckpoint(text);
  if (origin !== undefined && checkpoint.origin !== origin) throw new TlogVerificationError(`the checkpoint is of log ${checkpoint.origin}, not ${origin}`);
  return { ...checkpoint, note };
}

/** The signature type of an Ed25519 cosignature/v1 key (c2sp.org/tlog-cosignature). */
export const COSIGNATURE_ALGORITHM = 0x04;
/** Cosignature timestamps may run this far ahead of the verifier's clock (clock skew). */
const COSIGNATURE_FUTURE_SKEW_S = 600;

/** A witness's verifier key, `<name>+<8 hex key id>+<base64 of 0x04 || 32-byte Ed25519 key>`. */
export const parseWitnessKey = (text: string): VerifierKey => parseVerifierKey(text, COSIGNATURE_ALGORITHM);

/** The witness verifier key text for a name and a raw Ed25519 public key. */
export const witnessKeyText = (name: string, publicKey: Uint8Array): string => verifierKeyText(name, publicKey, COSIGNATURE_ALGORITHM);

/** What an Ed25519 cosignature/v1 signs: the header line, the time line, then the checkpoint body. */
export function cosignatureMessage(checkpointText: string, timestamp: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`, 'utf8');
}

/** The note signature line of a cosignature: key id, big-endian u64 timestamp, Ed25519 signature. */
export function cosignatureLine(key: VerifierKey, timestamp: number, signature: Uint8Array): string {
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(timestamp));
  return `\u2014 ${key.name} ${Buffer.concat([key.keyId, time, signature]).toString('base64')}\n`;
}

export interface VerifiedCosignature {
  witness: VerifierKey;
  /** When the witness signed, in seconds since the epoch. */
  timestamp: number;
}

/**
 * The valid cosignatures a checkpoint note carries from `witnessKeys` (c2sp.org/tlog-cosignature,
 * Ed25519). Signatures by other keys are ignored; one whose name and key id match a witness key but
 * that does not verify (or is dated more than ten minutes ahead of `now`) makes the note invalid.
 */
export function verifyCosignatures(note: string, witnessKeys: readonly (VerifierKey | string)[], now = new Date()): VerifiedCosignature[] {
  const witnesses = witnessKeys.map((key) => (typeof key === 'string' ? parseWitnessKey(key) : key));
  const { text, signatures } = parseSignedNote(note);
  const found = new Map<string, VerifiedCosignature>();
  for (const signature of signatures) {
    const witness = witnesses.find((candidate) => candidate.name === signature.name && candidate.keyId.equals(signature.keyId));
    if (!witness) continue;
    const timestamp = signature.signature.length === 72 ? signature.signature.readBigUInt64BE(0) : null;
    const valid =
      timestamp !== null &&
      timestamp <= BigInt(Math.floor(now.getTime() / 1000) + COSIGNATURE_FUTURE_SKEW_S) &&
      verify(null, cosignatureMessage(text, Number(timestamp)), ed25519Key(witness.publicKey), signature.signature.subarray(8));
    if (!valid) throw new TlogVerificationError(`the cosignature by witness ${witness.name} does not verify`);
    found.set(witness.text, { witness, timestamp: Number(timestamp) });
  }
  return [...found.values()];
}

/**
 * Requires `required` distinct witnesses among `witnessKeys` to have cosigned the checkpoint note;
 * answers their cosignatures. Throws TlogVerificationError when fewer did, or when one is forged.
 */
export function requireCosignatures(note: string, witnessKeys: readonly (VerifierKey | string)[], required: number, now = new Date()): VerifiedCosignature[] {
  if (!Number.isSafeInteger(required) || required < 0) throw new TlogVerificationError('the number of cosignatures required is a whole number');
  if (required > witnessKeys.length)
    throw new TlogVerificationError(`${required} cosignatures are required but only ${witnessKeys.length} witness keys are trusted`);
  const cosignatures = verifyCosignatures(note, witnessKeys, now);
  if (cosignatures.length < required)
    throw new TlogVerificationError(`the checkpoint carries ${cosignatures.length} valid cosignature(s) from the trusted witnesses; ${required} are required`);
  return cosignatures;
}

export interface WitnessPolicy {
  /** The witnesses trusted: their cosignature verifier keys (type 0x04). */
  witnessKeys: readonly (VerifierKey | string)[];
  /** How many distinct witnesses among them must have cosigned. */
  required: number;
}

/**
 * That a verified checkpoint is part of what witnesses saw: `cosigned` (the log's checkpoint as
 * served, carrying cosignatures) is signed by the log's key, carries `required` valid cosignatures
 * from `witnessKeys`, and `proof` shows it extends `checkpoint` (the same checkpoint, or a later one).
 * A client that checked a proof against `checkpoint` then knows the witnesses were shown that tree.
 */
export function verifyWitnessed(options: {
  checkpoint: Checkpoint & { note: string };
  cosigned: string;
  proof: readonly (string | Uint8Array)[];
  keys: readonly (VerifierKey | string)[];
  policy: WitnessPolicy;
  now?: Date;
}): VerifiedCosignature[] {
  const cosignatures = requireCosignatures(options.cosigned, options.policy.witnessKeys, options.policy.required, options.now);
  verifyConsistency({ from: options.checkpoint.note, to: options.cosigned, proof: options.proof, keys: options.keys });
  return cosignatures;
}

/** A c2sp.org/tlog-witness add-checkpoint request body. */
export interface AddCheckpointRequest {
  oldSize: number;
  proof: Buffer[];
  /** The signed checkpoint note. */
  checkpoint: string;
}

/** At most 63 consistency proof lines (c2sp.org/tlog-witness). */
const MAX_PROOF_LINES = 63;

export function formatAddCheckpoint(request: AddCheckpointRequest): string {
  return `old ${request.oldSize}\n${request.proof.map((hash) => `${hash.toString('base64')}\n`).join('')}\n${request.checkpoint}`;
}

/** Reads an add-checkpoint body; throws TlogVerificationError when it does not parse. */
export function parseAddCheckpoint(body: string): AddCheckpointRequest {
  const blank = body.indexOf('\n\n');
  if (blank < 0) throw new TlogVerificationError('an add-checkpoint body is an old size line, proof lines, an empty line and the checkpoint');
  const [oldLine, ...proofLines] = body.slice(0, blank).split('\n') as [string, ...string[]];
  const old = /^old (0|[1-9][0-9]{0,15})$/.exec(oldLine);
  if (!old || !Number.isSafeInteger(Number(old[1]))) throw new TlogVerificationError('the first line is `old <size>`, in decimal without leading zeroes');
  if (proofLines.length > MAX_PROOF_LINES) throw new TlogVerificationError(`at most ${MAX_PROOF_LINES} consistency proof lines`);
  const proof = proofLines.map((line) => {
    const hash = strictBase64(line);
    if (!hash || hash.length !== HASH_SIZE) throw new TlogVerificationError('each consistency proof line is one base64 SHA-256 hash');
    return hash;
  });
  const checkpoint = body.slice(blank + 2);
  parseCheckpoint(parseSignedNote(checkpoint).text);
  return { oldSize: Number(old[1]), proof, checkpoint };
}

export interface TlogProof {
  extra: Buffer | null;
  index: number;
  proof: Buffer[];
  /** The signed checkpoint, verbatim. */
  checkpoint: string;
}

/** Reads the c2sp.org/tlog-proof@v1 text format; throws when malformed. */
export function parseTlogProof(text: string): TlogProof {
  const blank = text.indexOf('\n\n');
  if (blank < 0) throw new TlogVerificationError('a tlog proof has an empty line before its checkpoint');
  const lines = text.slice(0, blank).split('\n');
  if (lines.shift() !== PROOF_HEADER) throw new TlogVerificationError(`a tlog proof starts with ${PROOF_HEADER}`);
  let extra: Buffer | null = null;
  if (lines[0]?.startsWith('extra ')) {
    extra = strictBase64(lines.shift()!.slice('extra '.length));
    if (!extra) throw new TlogVerificationError('the extra line is not base64');
  }
  const indexMatch = /^index (0|[1-9][0-9]{0,15})$/.exec(lines.shift() ?? '');
  if (!indexMatch || !Number.isSafeInteger(Number(indexMatch[1]))) throw new TlogVerificationError('a tlog proof names its index');
  const proof = lines.map((line) => {
    const hash = strictBase64(line);
    if (!hash || hash.length !== HASH_SIZE) throw new TlogVerificationError('an inclusion proof line is not a base64 SHA-256 hash');
    return hash;
  });
  return { extra, index: Number(indexMatch[1]), proof, checkpoint: text.slice(blank + 2) };
}

/** Writes a proof in the c2sp.org/tlog-proof@v1 text format. */
export function formatTlogProof(proof: TlogProof): string {
  const lines = [PROOF_HEADER];
  if (proof.extra) lines.push(`extra ${proof.extra.toString('base64')}`);
  lines.push(`index ${proof.index}`, ...proof.proof.map((hash) => hash.toString('base64')));
  return `${lines.join('\n')}\n\n${proof.checkpoint}`;
}

export interface VerifiedEntryProof {
  index: number;
  /** The logged entry: for the receipt log, the receipt's RFC 8785 bytes, signature included. */
  entry: Buffer;
  checkpoint: Checkpoint & { note: string };
}

export interface VerifyProofOptions {
  /** Trusted verifier keys of the log (`/.tlog/keys`). */
  keys: readonly (VerifierKey | string)[];
  /** The log's origin; when given, a checkpoint of another log is refused. */
  origin?: string;
  /** The entry the proof must be about; without it, the entry carried in the proof's `extra` line. */
  entry?: Uint8Array;
}

/**
 * Verifies a tlog proof offline: the checkpoint is signed by a trusted key, and the entry (given,
 * or carried in the `extra` line) is at the proof's index in the checkpointed tree.
 */
export function verifyEntryProof(proofText: string, options: VerifyProofOptions): VerifiedEntryProof {
  const proof = parseTlogProof(proofText);
  const checkpoint = verifyCheckpoint(proof.checkpoint, options.keys, options.origin);
  const entry = options.entry ? Buffer.from(options.entry) : proof.extra;
  if (!entry) throw new TlogVerificationError('the proof carries no entry and none was given');
  if (options.entry && proof.extra && !proof.extra.equals(entry)) throw new TlogVerificationError('the proof is about another entry');
  if (!checkInclusion(proof.proof, checkpoint.size, checkpoint.root, proof.index, hashLeaf(entry)))
    throw new TlogVerificationError(`the entry is not at index ${proof.index} of the tree of size ${checkpoint.size}`);
  return { index: proof.index, entry, checkpoint };
}

/** The bytes the receipt log holds for a receipt: its RFC 8785 form, signature included. */
export function receiptLogEntry(receipt: object): Buffer {
  const text = canonicalize(receipt);
  if (text === undefined) throw new TlogVerificationError('a receipt is a JSON object');
  return Buffer.from(text, 'utf8');
}

/**
 * Verifies a receipt's proof from the receipt log: as `verifyEntryProof`, and the entry is a JSON
 * receipt (returned parsed). Pass `receipt` (the receipt object, or its log entry bytes) to check
 * the proof is about it.
 */
export function verifyReceiptProof(
  proofText: string,
  options: Omit<VerifyProofOptions, 'entry'> & { receipt?: object | Uint8Array },
): VerifiedEntryProof & { receipt: Record<string, unknown> } {
  const entry = options.receipt === undefined ? undefined : options.receipt instanceof Uint8Array ? options.receipt : receiptLogEntry(options.receipt);
  const verified = verifyEntryProof(proofText, { keys: options.keys, ...(options.origin ? { origin: options.origin } : {}), ...(entry ? { entry } : {}) });
  let receipt: unknown;
  try {
    receipt = JSON.parse(verified.entry.toString('utf8'));
  } catch {
    throw new TlogVerificationError('the logged entry is not a JSON receipt');
  }
  if (!receipt || typeof receipt !== 'object' || Array.isArray(receipt)) throw new TlogVerificationError('the logged entry is not a JSON receipt');
  return { ...verified, receipt: receipt as Record<string, unknown> };
}

/**
 * Verifies that a newer signed checkpoint extends an older one: both signed by a trusted key, of
 * the same log, and the consistency proof (base64 hashes or bytes) holds between them.
 */
export function verifyConsistency(options: { from: string; to: string; proof: readonly (string | Uint8Array)[]; keys: readonly (VerifierKey | string)[] }): {
  from: Checkpoint & { note: string };
  to: Checkpoint & { note: string };
} {
  const from = verifyCheckpoint(options.from, options.keys);
  const to = verifyCheckpoint(options.to, options.keys, from.origin);
  const proof = options.proof.map((hash) => {
    const bytes = typeof hash === 'string' ? strictBase64(hash) : Buffer.from(hash);
    if (!bytes || bytes.length !== HASH_SIZE) throw new TlogVerificationError('a consistency proof hash is not a base64 SHA-256 hash');
    return bytes;
  });
  if (from.size > to.size) throw new TlogVerificationError(`the older checkpoint (size ${from.size}) is larger than the newer (size ${to.size})`);
  if (from.size === to.size ? !from.root.equals(to.root) || proof.length > 0 : !checkConsistency(proof, to.size, to.root, from.size, from.root))
    throw new TlogVerificationError(`the tree of size ${to.size} does not extend the tree of size ${from.size}`);
  return { from, to };
}

/** The events of the registry log (docs/trust.md, "The registry log"). */
export const registryEvents = [
  'registered',
  'claimed',
  'key_added',
  'key_rotated',
  'key_revoked',
  'endpoint_changed',
  'name_changed',
  'visibility_changed',
  'domain_verified',
  'domain_lost',
  'delisted',
  'relisted',
  'deleted',
] as const;
export type RegistryEventName = (typeof registryEvents)[number];

/** One entry of the registry log: what happened to which agent, the new public values, and when. */
export interface RegistryLogEvent {
  agentId: string;
  event: RegistryEventName;
  /** The new public values the event sets; empty for an agent that is not public. */
  values: Record<string, unknown>;
  /** ISO 8601 UTC. */
  time: string;
}

/** The bytes the registry log holds for an event: the RFC 8785 form of `{ agentId, event, values, time }`. */
export function registryLogEntry(event: RegistryLogEvent): Buffer {
  const text = canonicalize({ agentId: event.agentId, event: event.event, values: event.values, time: event.time });
  if (text === undefined) throw new TlogVerificationError('a registry event is a JSON object');
  return Buffer.from(text, 'utf8');
}

/** Reads a registry log entry back; throws when the bytes are not one written by `registryLogEntry`. */
export function parseRegistryLogEntry(entry: Uint8Array): RegistryLogEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(entry).toString('utf8'));
  } catch {
    throw new TlogVerificationError('a registry log entry is JSON');
  }
  const event = parsed as RegistryLogEvent;
  if (
    !event ||
    typeof event !== 'object' ||
    typeof event.agentId !== 'string' ||
    !(registryEvents as readonly string[]).includes(event.event) ||
    !event.values ||
    typeof event.values !== 'object' ||
    Array.isArray(event.values) ||
    typeof event.time !== 'string' ||
    Object.keys(event).length !== 4 ||
    !registryLogEntry(event).equals(Buffer.from(entry))
  )
    throw new TlogVerificationError('not a registry log entry in its canonical form');
  return event;
}

/** An agent's history as `GET /v1/agents/:id/history` answers it (its `data`). */
export interface AgentHistory {
  agentId: string;
  /** The signed checkpoint every proof is against (null while no event is logged yet). */
  checkpoint: string | null;
  events: (RegistryLogEvent & { logIndex: number | null; proof: string | null })[];
}

export interface VerifiedAgentHistory {
  agentId: string;
  checkpoint: (Checkpoint & { note: string }) | null;
  /** The verified events, in log order, each with its index. */
  events: (RegistryLogEvent & { logIndex: number })[];
  /** Events the service says are not logged yet (no proof to check). */
  pending: number;
}

/**
 * Verifies an agent's history offline: every logged event's proof verifies against one checkpoint
 * signed by a trusted key (of the log `origin`, when given), the proof's entry is the event as
 * listed, and each event is about the agent. Throws TlogVerificationError on the first failure.
 */
export function verifyAgentHistory(history: AgentHistory, options: { keys: readonly (VerifierKey | string)[]; origin?: string }): VerifiedAgentHistory {
  const logged = history.events.filter((event) => event.logIndex !== null);
  if (logged.length > 0 && history.checkpoint === null) throw new TlogVerificationError('logged events come with a checkpoint');
  const checkpoint = history.checkpoint === null ? null : verifyCheckpoint(history.checkpoint, options.keys, options.origin);
  const events: VerifiedAgentHistory['events'] = [];
  for (const event of logged) {
    if (event.agentId !== history.agentId) throw new TlogVerificationError(`an event of agent ${event.agentId} is in the history of ${history.agentId}`);
    if (event.proof === null) throw new TlogVerificationError(`logged event ${event.logIndex} comes without its proof`);
    const entry = registryLogEntry(event);
    const verified = verifyEntryProof(event.proof, { keys: options.keys, origin: checkpoint!.origin, entry });
    if (verified.checkpoint.note !== checkpoint!.note) throw new TlogVerificationError(`the proof of event ${event.logIndex} is against another checkpoint`);
    if (verified.index !== event.logIndex) throw new TlogVerificationError(`the proof of event ${event.logIndex} is for index ${verified.index}`);
    events.push({ agentId: event.agentId, event: event.event, values: event.values, time: event.time, logIndex: verified.index });
  }
  return { agentId: history.agentId, checkpoint, events, pending: history.events.length - logged.length };
}

/** A tile index as c2sp.org/tlog-tiles writes it: 3-digit groups, all but the last prefixed with `x` (1234067 is `x001/x234/067`). */
export function formatTileIndex(index: number): string {
  const groups: string[] = [];
  do {
    groups.unshift(String(index % 1000).padStart(3, '0'));
    index = Math.floor(index / 1000);
  } while (index > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
}

/** The path of the entry bundle of level-0 tile `index`, `width` entries wide, under a log's prefix. */
export const entryBundlePath = (index: number, width: number): string => `tile/entries/${formatTileIndex(index)}${width < 256 ? `.p/${width}` : ''}`;

/** Splits an entry bundle into its entries (each after its big-endian uint16 length). */
export function readEntryBundle(bundle: Uint8Array): Buffer[] {
  const bytes = Buffer.from(bundle);
  const entries: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    if (at + 2 > bytes.length) throw new TlogVerificationError('an entry bundle ends inside a length');
    const length = bytes.readUInt16BE(at);
    if (at + 2 + length > bytes.length) throw new TlogVerificationError('an entry bundle ends inside an entry');
    entries.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/**
 * The right edge of a tree of `size` entries: the hashes of its perfect subtrees, largest first, as
 * [height, hash]. A monitor that keeps it can append the next entries and recompute the root, so
 * it checks new entries and that the tree only grew without anything else from the log.
 */
export type CompactRange = [number, Buffer][];

export function appendToRange(range: CompactRange, leafHash: Uint8Array): CompactRange {
  const next: CompactRange = [...range, [0, Buffer.from(leafHash)]];
  while (next.length >= 2 && next[next.length - 1]![0] === next[next.length - 2]![0]) {
    const [height, right] = next.pop()!;
    const [, left] = next.pop()!;
    next.push([height + 1, hashChildren(left, right)]);
  }
  return next;
}

export function rangeRoot(range: CompactRange): Buffer {
  if (range.length === 0) return EMPTY_ROOT;
  let hash = range[range.length - 1]![1];
  for (let i = range.length - 2; i >= 0; i--) hash = hashChildren(range[i]![1], hash);
  return hash;
}
