/** Runs the `agentry` CLI in-process, as a shell would, capturing its output and exit code. */
import { runCli } from '../../packages/cli/src/cli.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runAgentry(args: string[], env: Record<string, string | undefined>, options: { signal?: AbortSignal } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, stdout, stderr };
}

/** A long-running command (`listen`, `logs`) started in-process: its output so far, read while it runs, and `stop()` to end it as Ctrl-C would. */
export function startAgentry(args: string[], env: Record<string, string | undefined>) {
  const output = { stdout: '', stderr: '' };
  const controller = new AbortController();
  const done = runCli(args, {
    stdout: (text) => void (output.stdout += text),
    stderr: (text) => void (output.stderr += text),
    env,
    signal: controller.signal,
  });
  return {
    output,
    done,
    async stop(): Promise<CliResult> {
      controller.abort();
      return { code: await done, ...output };
    },
  };
}
