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
