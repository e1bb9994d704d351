/**
 * An agent's registration key in the browser: a PKCS#8 PEM Ed25519 private key file (what the SDK,
 * the CLI and OpenSSL write), imported with WebCrypto and used to sign in the page. Nothing here
 * sends the key anywhere; only signatures leave.
 */

/** A key file the page cannot use, with the sentence to show the person. */
export class KeyFileProblem extends Error {
  override name = 'KeyFileProblem';
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;
/** The DER encoding of the Ed25519 algorithm identifier, OID 1.3.101.112 (RFC 8410). */
const ED25519_OID = [0x06, 0x03, 0x2b, 0x65, 0x70];

function containsBytes(haystack: Uint8Array, needle: number[]): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** The DER bytes of the one PKCS#8 private key in `text`, or a KeyFileProblem saying what the file is instead. */
export function pkcs8FromPem(text: string): Uint8Array<ArrayBuffer> {
  const block = PEM_BLOCK.exec(text);
  if (!block) throw new KeyFileProblem('This file is not a PEM key file (it has no “-----BEGIN PRIVATE KEY-----” block).');
  const label = block[1]!;
  if (label === 'ENCRYPTED PRIVATE KEY')
    throw new KeyFileProblem('This key file is encrypted with a passphrase; the page can only use an unencrypted PKCS#8 key.');
  if (label === 'PUBLIC KEY') throw new KeyFileProblem('This file holds a public key; choose the private key file the agent was registered with.');
  if (label === 'OPENSSH PRIVATE KEY')
    throw new KeyFileProblem('This is an OpenSSH key file; the agent’s key is a PKCS#8 PEM file (“-----BEGIN PRIVATE KEY-----”).');
  if (label !== 'PRIVATE KEY') throw new KeyFileProblem(`This file holds a “${label}”, not an Ed25519 private key.`);
  let der: Uint8Array<ArrayBuffer>;
  try {
    der = Uint8Array.from(atob(block[2]!.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  } catch {
    throw new KeyFileProblem('The key file is damaged: its PEM body is not base64.');
  }
  if (!containsBytes(der.subarray(0, 16), ED25519_OID)) throw new KeyFileProblem('This private key is not an Ed25519 key.');
  return der;
}

const base64urlToBase64 = (value: string) => {
  const plain = value.replace(/-/g, '+').replace(/_/g, '/');
  return plain + '='.repeat((4 - (plain.length % 4)) % 4);
};

const bytesToBase64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** The service's spelling of a public key, `ed25519:<standard base64>`, for comparing with the registration key. */
const normalizePublicKey = (value: string) => {
  const body = value.startsWith('ed25519:') ? value.slice('ed25519:'.length) : value;
  return `ed25519:${base64urlToBase64(body.replace(/=+$/, ''))}`;
};

export interface AgentSigningKey {
  /** `ed25519:<base64>` of the key's public half. */
  publicKey: string;
  /** Base64url Ed25519 signature over the UTF-8 bytes of `text`. */
  sign(text: string): Promise<string>;
}

/** Reads a PKCS#8 PEM Ed25519 private key into a WebCrypto key; throws KeyFileProblem with the reason when it cannot. */
export async function importAgentKey(pem: string): Promise<AgentSigningKey> {
  const der = pkcs8FromPem(pem);
  let key: CryptoKey;
  try {
    // Extractable only so its public half can be read (a JWK of a private key carries `x`).
    key = await crypto.subtle.importKey('pkcs8', der, { name: 'Ed25519' }, true, ['sign']);
  } catch (error) {
    if (error instanceof DOMException && error.name === 'NotSupportedError') {
      throw new KeyFileProblem('This browser cannot sign with Ed25519 keys. Use a current browser, or sign elsewhere and paste the signature.');
    }
    throw new KeyFileProblem('The key file is damaged: it does not hold a valid Ed25519 private key.');
  }
  const jwk = await crypto.subtle.exportKey('jwk', key);
  if (typeof jwk.x !== 'string') throw new KeyFileProblem('The key file is damaged: its public half cannot be derived.');
  return {
    publicKey: normalizePublicKey(jwk.x),
    sign: async (text) => bytesToBase64url(await crypto.subtle.sign({ name: 'Ed25519' }, key, new TextEncoder().encode(text))),
  };
}

export const samePublicKey = (a: string, b: string) => normalizePublicKey(a) === normalizePublicKey(b);

const PUBLIC_KEY_PATTERN = /^ed25519:[A-Za-z0-9+/_-]{43}=?$/;

/** Why a pasted public key cannot be an agent's key, or null when it has the right shape (the service checks the point itself). */
export function publicKeyProblem(text: string): string | null {
  if (!text) return null;
  if (!text.startsWith('ed25519:')) return 'An agent’s public key starts with “ed25519:”, then the base64 of its 32 bytes.';
  if (!PUBLIC_KEY_PATTERN.test(text)) return 'After “ed25519:” comes the base64 of exactly 32 bytes (43 characters, maybe one “=”).';
  return null;
}

const pemOf = (der: ArrayBuffer) => {
  const body = btoa(String.fromCharCode(...new Uint8Array(der)));
  return `-----BEGIN PRIVATE KEY-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
};

/**
 * A fresh Ed25519 key pair made in the page, its private half as a PKCS#8 PEM file's text (the
 * format the SDK, the CLI and OpenSSL read). The private key never leaves the page except as that
 * file, saved by the person.
 */
export async function generateAgentKey(): Promise<{ key: AgentSigningKey; pem: string }> {
  let pair: CryptoKeyPair;
  try {
    pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  } catch {
    throw new KeyFileProblem('This browser cannot make Ed25519 keys. Use a current browser, or make one with “agentry keygen” and paste its public key.');
  }
  const pem = pemOf(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
  return { key: await importAgentKey(pem), pem };
}

/** Offers `text` to the person as a file download named `filename`. */
export function downloadText(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-pem-file' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  URL.revokeObjectURL(url);
}
