/**
 * This instance as a witness (c2sp.org/tlog-witness, add-checkpoint): for each log an admin lists
 * (origin and verifier key) it keeps the latest checkpoint it cosigned, cosigns a new checkpoint only
 * when a consistency proof shows it extends that one, and so never cosigns two forks of a log.
 * Cosignatures are Ed25519 cosignature/v1 with a timestamp (c2sp.org/tlog-cosignature).
 */
import { randomBytes } from 'node:crypto';
import {
  EMPTY_ROOT,
  checkConsistency,
  cosignatureLine,
  cosignatureMessage,
  parseAddCheckpoint,
  parseCheckpoint,
  parseSignedNote,
  parseVerifierKey,
  parseWitnessKey,
  verifyNote,
  witnessKeyText,
  type AddCheckpointRequest,
  type Checkpoint,
  type VerifierKey,
} from '@agentry/sdk/tlog';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { publicKeyFromSeed, signMessage } from '../../lib/ed25519.ts';
import { AppError, badRequest, forbidden, notFound } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { originFor } from '../tlog/index.ts';
import type { WitnessStore } from './store.ts';

const sealedFor = (verifierKey: string) => `witness-key:${verifierKey}`;

/** An add-checkpoint whose old size is not the size last cosigned: the answer carries that size. */
export class OldSizeMismatch extends Error {
  constructor(readonly size: number) {
    super(`the latest checkpoint cosigned for this log has size ${size}`);
  }
}

export interface WitnessOptions {
  store: WitnessStore;
  secrets: SecretBox;
  clock: Clock;
  /** The witness key's name is the service's host and path plus `/witness`. */
  publicUrl: string;
}

export function createWitness({ store, secrets, clock, publicUrl }: WitnessOptions) {
  let signer: { key: VerifierKey; seed: Buffer } | null = null;
  const active = () => {
    if (!signer) throw new Error('the witness is not started');
    return signer;
  };

  function cosign(text: string): string {
    const { key, seed } = active();
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    return cosignatureLine(key, timestamp, signMessage(seed, cosignatureMessage(text, timestamp)));
  }

  return {
    /** Reads the witness key, or makes it once (the first node to start keeps its own). */
    async start(): Promise<void> {
      let kept = await store.signer();
      if (!kept) {
        const seed = randomBytes(32);
        const verifierKey = witnessKeyText(originFor(publicUrl, 'witness'), publicKeyFromSeed(seed));
        await store.offerSigner(verifierKey, secrets.seal(seed.toString('base64'), sealedFor(verifierKey)), isoNow(clock));
        kept = (await store.signer())!;
      }
      signer = { key: parseWitnessKey(kept.verifierKey), seed: Buffer.from(secrets.open(kept.sealedSeed, sealedFor(kept.verifierKey)), 'base64') };
    },

    /** The witness's verifier key (type 0x04), as the logs it witnesses configure it. */
    verifierKey: (): string => active().key.text,

    /**
     * Handles an add-checkpoint body: the cosignature line on success. Throws a 400 (does not parse,
     * or old size beyond the checkpoint), 404 (origin not witnessed), 403 (no valid signature by the
     * log's key), 422 (proof does not verify, or a size-0 checkpoint that is not the empty tree) or
     * OldSizeMismatch (409), in the order c2sp.org/tlog-witness names them.
     */
    async addCheckpoint(body: string): Promise<string> {
      let request: AddCheckpointRequest;
      let checkpoint: Checkpoint;
      try {
        request = parseAddCheckpoint(body);
        checkpoint = parseCheckpoint(parseSignedNote(request.checkpoint).text);
      } catch (error) {
        throw badRequest(`The add-checkpoint body does not parse: ${(error as Error).message}`);
      }
      const log = await store.activeLog(checkpoint.origin);
      if (!log) throw notFound(`This witness does not witness the log ${checkpoint.origin}`);
      let text: string;
      try {
        ({ text } = verifyNote(request.checkpoint, [parseVerifierKey(log.verifierKey)]));
      } catch (error) {
        throw forbidden(`The checkpoint is not signed by the log's key: ${(error as Error).message}`);
      }
      if (request.oldSize > checkpoint.size) throw badRequest(`The old size ${request.oldSize} is larger than the checkpoint's size ${checkpoint.size}`);
      if (request.oldSize !== log.size) throw new OldSizeMismatch(log.size);
      if (checkpoint.size === 0 && !checkpoint.root.equals(EMPTY_ROOT)) throw unprocessable('A checkpoint of size 0 has the root hash of the empty tree');
      if (request.oldSize === 0 && request.proof.length > 0) throw unprocessable('From size 0 the consistency proof is empty');
      if (!checkConsistency(request.proof, checkpoint.size, checkpoint.root, log.size, log.root))
        throw unprocessable(
          request.oldSize === checkpoint.size
            ? `The checkpoint's root differs from the one cosigned at size ${log.size}`
            : `The consistency proof from size ${log.size} to ${checkpoint.size} does not verify`,
        );
      const line = cosign(text);
      const advanced = await store.advance(
        checkpoint.origin,
        { size: log.size, root: log.root },
        { size: checkpoint.size, root: checkpoint.root, checkpoint: `${request.checkpoint}${line}` },
        isoNow(clock),
      );
      // Another request moved the log on since it was read: this one was checked against an old state.
      if (!advanced) throw new OldSizeMismatch((await store.activeLog(checkpoint.origin))?.size ?? 0);
      return line;
    },

    /** The latest checkpoint cosigned for a witnessed log, with its cosignature; null before the first. */
    async latestCosigned(origin: string): Promise<string | null> {
      return (await store.activeLog(origin))?.checkpoint ?? null;
    },
  };
}

const unprocessable = (message: string) => new AppError('UNPROCESSABLE', message);

export type Witness = ReturnType<typeof createWitness>;
