/**
 * This instance's logs asking their witnesses for cosignatures, off the request path: a timed pass
 * sends each log's latest checkpoint to every configured witness that has not cosigned it yet, with
 * a consistency proof from the size that witness cosigned last. A witness that fails is asked again
 * later (backing off, up to a minute); the logs never wait for one. The checkpoint a log serves
 * carries the cosignatures held for exactly that checkpoint.
 */
import { formatAddCheckpoint, parseSignedNote, parseWitnessKey, verifyCosignatures } from '@agentry/sdk/tlog';
import { isoNow, type Clock } from '../../lib/clock.ts';
import type { TransparencyLog } from '../tlog/index.ts';
import type { WitnessPeer, WitnessStore } from './store.ts';

const MAX_BACKOFF_MS = 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

export interface WitnessClientOptions {
  store: WitnessStore;
  logs: TransparencyLog[];
  clock: Clock;
  /** Between passes. */
  intervalMs: number;
  onError(message: string, error?: unknown): void;
}

export function createWitnessClient({ store, logs, clock, intervalMs, onError }: WitnessClientOptions) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = true;
  /** Per witness and log: failures in a row, and when it may be asked again. */
  const backoff = new Map<string, { failures: number; until: number }>();

  async function submit(log: TransparencyLog, peer: WitnessPeer, oldSize: number, note: string, size: number): Promise<Response> {
    const proof = await log.consistencyProof(oldSize, size);
    return fetch(`${peer.url.replace(/\/+$/, '')}/add-checkpoint`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: formatAddCheckpoint({ oldSize, proof, checkpoint: note }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  }

  /** Asks one witness to cosign the log's checkpoint; true when it did. */
  async function ask(log: TransparencyLog, peer: WitnessPeer, held: { size: number; checkpointText: string } | undefined): Promise<boolean> {
    const { checkpoint: note, size } = await log.checkpoint();
    const text = parseSignedNote(note).text;
    if (held?.checkpointText === text) return true;
    let oldSize = held && held.size <= size ? held.size : 0;
    let response = await submit(log, peer, oldSize, note, size);
    if (response.status === 409) {
      // The witness cosigned another size last (state lost here, or another node asked): prove from there.
      const theirs = Number((await response.text()).trim());
      if (!Number.isSafeInteger(theirs) || theirs > size)
        throw new Error(`the witness has cosigned size ${theirs} of the ${log.name} log, beyond its size ${size}`);
      oldSize = theirs;
      response = await submit(log, peer, oldSize, note, size);
    }
    const body = await response.text();
    if (response.status !== 200) throw new Error(`the witness answered ${response.status}: ${body.slice(0, 200)}`);
    const witness = parseWitnessKey(peer.verifierKey);
    const lines = body.split(/(?<=\n)/).filter((line) => line.startsWith(`\u2014 ${witness.name} `));
    const verified = lines.filter((line) => verifyCosignatures(`${text}\n${line}`, [witness], clock.now()).length > 0);
    if (verified.length === 0) throw new Error('the witness answered without a cosignature by its key');
    await store.saveCosignature(log.name, peer.verifierKey, size, text, verified[0]!, isoNow(clock));
    return true;
  }

  async function passOnce(): Promise<void> {
    const peers = await store.peers();
    // Most instances have no witnesses: one read a second, not one per log as well.
    if (peers.length === 0) return;
    for (const log of logs) {
      const held = new Map((await store.cosignatures(log.name)).map((row) => [row.witnessKey, row]));
      await Promise.all(
        peers.map(async (peer) => {
          const key = `${peer.verifierKey}\n${log.name}`;
          const wait = backoff.get(key);
          if (wait && wait.until > performance.now()) return;
          try {
            await ask(log, peer, held.get(peer.verifierKey));
            backoff.delete(key);
          } catch (error) {
            const failures = (wait?.failures ?? 0) + 1;
            backoff.set(key, { failures, until: performance.now() + Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** failures) });
            onError(`witness ${peer.url}: no cosignature for the ${log.name} log yet; asking again later`, error);
          }
        }),
      );
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = passOnce()
        .catch((error: unknown) => onError('witnesses: a pass failed; the next pass retries', error))
        .finally(() => {
          running = null;
          schedule();
        });
    }, intervalMs);
    timer.unref();
  }

  return {
    passOnce,
    /** A new witness list: every witness is asked at the next pass, whatever its earlier failures. */
    forgetFailures: (): void => backoff.clear(),
    start(): void {
      stopped = false;
      schedule();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },

    /** The log's checkpoint note with the cosignatures held for exactly that checkpoint appended. */
    async cosigned(logName: string, note: string): Promise<string> {
      const text = parseSignedNote(note).text;
      const lines = (await store.cosignatures(logName)).filter((row) => row.checkpointText === text).map((row) => row.line);
      return `${note}${lines.sort().join('')}`;
    },
  };
}

export type WitnessClient = ReturnType<typeof createWitnessClient>;
