import { useId, useState } from 'react';
import { downloadText, generateAgentKey, importAgentKey, KeyFileProblem, publicKeyProblem, type AgentSigningKey } from '../lib/agent-key';

/** Key files are a few hundred bytes; anything much larger is not one, and is not read into memory. */
export const MAX_KEY_FILE_BYTES = 16 * 1024;

export type KeySource = 'none' | 'generate' | 'file' | 'paste';

/** The key the person picked: its public half, and (from a file or made here) the means to sign with it in the page. */
export interface PickedKey {
  publicKey: string;
  signer: AgentSigningKey | null;
}

/** Reads the key file the person chose; only its public half and a signing function come out, nothing is uploaded. */
export async function keyFromFile(file: File): Promise<AgentSigningKey> {
  if (file.size > MAX_KEY_FILE_BYTES) throw new KeyFileProblem('This file is far too large to be a key file.');
  return importAgentKey(await file.text());
}

/**
 * Choosing an agent's Ed25519 key: made in the page (the private key is downloaded once as a PKCS#8
 * PEM file and never sent), read from a PKCS#8 PEM file (only the public half is used outside the
 * page), or pasted as `ed25519:…`. `sources` lists the ways offered, the first being the default.
 */
export function AgentKeyPicker({
  sources,
  fileName,
  onChange,
  serverProblem,
  showProblems,
}: {
  sources: readonly KeySource[];
  /** The name the made key's file is saved under. */
  fileName: string;
  onChange: (picked: PickedKey | null, problem: string | null) => void;
  serverProblem?: string;
  showProblems: boolean;
}) {
  const id = useId();
  const [source, setSource] = useState<KeySource>(sources[0]!);
  const [pasted, setPasted] = useState('');
  const [picked, setPicked] = useState<PickedKey | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const report = (next: PickedKey | null, nextProblem: string | null) => {
    setPicked(next);
    setProblem(nextProblem);
    onChange(next, nextProblem);
  };
  const missing = (chosen: KeySource) =>
    chosen === 'generate'
      ? 'Make the key pair first.'
      : chosen === 'file'
        ? 'Choose the key file first.'
        : chosen === 'paste'
          ? 'Paste the public key first.'
          : null;

  const choose = (chosen: KeySource) => {
    setSource(chosen);
    setPasted('');
    report(null, missing(chosen));
  };
  const make = async () => {
    setBusy(true);
    try {
      const { key, pem } = await generateAgentKey();
      downloadText(fileName, pem);
      report({ publicKey: key.publicKey, signer: key }, null);
    } catch (error) {
      report(null, error instanceof KeyFileProblem ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  const readFile = async (file: File | undefined) => {
    if (!file) return report(null, missing('file'));
    try {
      const key = await keyFromFile(file);
      report({ publicKey: key.publicKey, signer: key }, null);
    } catch (error) {
      report(null, error instanceof KeyFileProblem ? error.message : String(error));
    }
  };

  const labels: Record<KeySource, string> = {
    none: 'Not now: without a key the agent carries no trust',
    generate: 'Make one for me, in this page',
    file: 'Use a private key file I have (PKCS#8 PEM)',
    paste: 'Paste a public key (ed25519:…)',
  };
  // A key not chosen yet waits for the person to send; a wrong one is named at once.
  const shownProblem = serverProblem ?? (showProblems || problem !== missing(source) ? problem : null);
  const messageId = `${id}-message`;

  return (
    <div className="key-picker">
      <fieldset className="field">
        <legend className="label">Public key</legend>
        <p className="field-hint">Receipts about the agent are signed for this key, so its trust belongs to it. The private key never leaves your computer.</p>
        {sources.map((s) => (
          <label className="checkbox" key={s}>
            <input type="radio" name={`${id}-source`} checked={source === s} onChange={() => choose(s)} /> {labels[s]}
          </label>
        ))}
      </fieldset>
      {source === 'generate' && (
        <div className="field">
          <button type="button" className="button" onClick={() => void make()} disabled={busy} aria-describedby={messageId}>
            {picked ? 'Make another key pair' : 'Make a key pair'}
          </button>
        </div>
      )}
      {source === 'file' && (
        <div className="field">
          <label htmlFor={`${id}-file`}>Private key file (PKCS#8 PEM, Ed25519)</label>
          <input
            id={`${id}-file`}
            type="file"
            accept=".pem,.key,application/x-pem-file,text/plain"
            onChange={(e) => void readFile(e.target.files?.[0])}
            aria-describedby={messageId}
            aria-invalid={Boolean(shownProblem)}
          />
        </div>
      )}
      {source === 'paste' && (
        <div className="field">
          <label htmlFor={`${id}-paste`}>Public key</label>
          <input
            id={`${id}-paste`}
            className="mono"
            spellCheck={false}
            autoComplete="off"
            placeholder="ed25519:…"
            value={pasted}
            onChange={(e) => {
              const text = e.target.value.trim();
              setPasted(e.target.value);
              const found = text ? publicKeyProblem(text) : missing('paste');
              report(found ? null : { publicKey: text, signer: null }, found);
            }}
            aria-describedby={messageId}
            aria-invalid={Boolean(shownProblem)}
          />
        </div>
      )}
      <p id={messageId} className={shownProblem ? 'field-error' : 'field-hint'} role={shownProblem ? 'alert' : undefined}>
        {shownProblem ??
          (picked
            ? `Public key: ${picked.publicKey}` +
              (source === 'generate' ? `. The private key was saved as ${fileName} in your downloads: keep it safe, this page does not keep it.` : '')
            : source === 'file'
              ? 'The file is read in this page only; its public half is all that is sent.'
              : source === 'generate'
                ? `The private key is saved once, as ${fileName}; it is never sent.`
                : '')}
      </p>
    </div>
  );
}
