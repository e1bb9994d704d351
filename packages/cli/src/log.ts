/**
 * `agentry log`: checks proofs from a transparency log offline, and that a log only grows. Every
 * checkpoint the CLI verifies is remembered (per log origin, beside the CLI's settings), so a later
 * `log consistency --from N` can prove the log still extends what was seen at size N.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseCheckpoint, parseSignedNote, parseTlogProof, verifyCheckpoint, verifyConsistency, type Checkpoint } from '@agentry/sdk';
import { configPath } from './config.ts';

/** Checkpoints kept per origin: the most recent sizes seen. */
const REMEMBERED_PER_LOG = 100;

type Remembered = Record<string, Record<string, string>>;

const rememberedPath = (env: Record<string, string | undefined>) => join(dirname(configPath(env)), 'checkpoints.json');

function readRemembered(env: Record<string, string | undefined>): Remembered {
  try {
    const parsed = JSON.parse(readFileSync(rememberedPath(env), 'utf8')) as Remembered;
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

/** Keeps a verified checkpoint for later consistency checks. */
export function rememberCheckpoint(env: Record<string, string | undefined>, checkpoint: Checkpoint & { note: string }): void {
  const all = readRemembered(env);
  const sizes = { ...all[checkpoint.origin], [String(checkpoint.size)]: checkpoint.note };
  const kept = Object.keys(sizes)
    .map(Number)
    .sort((a, b) => b - a)
    .slice(0, REMEMBERED_PER_LOG);
  all[checkpoint.origin] = Object.fromEntries(kept.map((size) => [String(size), sizes[String(size)]!]));
  const path = rememberedPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
}

export function rememberedCheckpoint(env: Record<string, string | undefined>, origin: string, size: number): string | undefined {
  return readRemembered(env)[origin]?.[String(size)];
}

/** A checkpoint from a file holding either a signed checkpoint or a tlog proof (whose checkpoint it carries). */
export function checkpointFromFile(text: string): string {
  return text.startsWith('c2sp.org/tlog-proof@v1\n') ? parseTlogProof(text).checkpoint : text;
}

/** The origin a signed checkpoint names, before its signature is checked (to find remembered ones). */
export const originOf = (note: string): string => parseCheckpoint(parseSignedNote(note).text).origin;

export { verifyCheckpoint, verifyConsistency };
