/**
 * A log's signing key, in the signed-note key formats of Go's golang.org/x/mod/sumdb/note (read and
 * written by the SDK), and the signature line a checkpoint carries.
 */
import { randomBytes } from 'node:crypto';
import { noteKeyId, verifierKeyText, type SignerKey } from '@agentry/sdk/tlog';
import { publicKeyFromSeed, signMessage } from '../../lib/ed25519.ts';

export type NoteSigner = SignerKey;

export function noteSigner(name: string, seed: Buffer): NoteSigner {
  return { name, seed, verifierKey: verifierKeyText(name, publicKeyFromSeed(seed)) };
}

export const generateNoteSigner = (name: string): NoteSigner => noteSigner(name, randomBytes(32));

/** Signs a note's text (ending in a newline): the text, an empty line, and the signature line. */
export function signNote(text: string, signer: NoteSigner): string {
  const signature = signMessage(signer.seed, text);
  const keyId = noteKeyId(signer.name, publicKeyFromSeed(signer.seed));
  return `${text}\n\u2014 ${signer.name} ${Buffer.concat([keyId, signature]).toString('base64')}\n`;
}
