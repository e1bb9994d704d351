/**
 * `agentry monitor <instance-url>` (docs/trust.md, "Monitoring an instance"): reads both of the
 * instance's logs from where the last run stopped (kept in a state file), checks they only grew,
 * re-derives every trust score from the logged receipts and compares them with what the instance
 * answers. Exit 0 when all agrees, 1 on any difference.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { monitorInstance, parseWitnessKey, type MonitorReport, type MonitorState, type WitnessPolicy } from '@agentry/sdk';
import type { Command } from 'commander';

export interface MonitorCommandContext {
  stdout(text: string): void;
  json(): boolean;
  usage(message: string): Error;
  /** Sets the exit code of a run that found a difference. */
  differed(): void;
}

export const DEFAULT_MONITOR_STATE = 'agentry-monitor.json';

/** A commander parser of a whole number option. */
export const wholeNumber = (usage: (message: string) => Error) => (value: string) => {
  if (!/^(0|[1-9][0-9]{0,5})$/.test(value)) throw usage('--require-cosignatures is a whole number');
  return Number(value);
};

/** The witnesses --require-cosignatures and --witness-key ask for; null when none are required. */
export function witnessPolicy(options: { witnessKey?: string[]; requireCosignatures?: number }, usage: (message: string) => Error): WitnessPolicy | null {
  const required = options.requireCosignatures ?? 0;
  const witnessKeys = options.witnessKey ?? [];
  if (required === 0) return null;
  if (witnessKeys.length < required) throw usage(`--require-cosignatures ${required} needs at least ${required} --witness-key`);
  for (const key of witnessKeys)
    try {
      parseWitnessKey(key);
    } catch (error) {
      throw usage(`--witness-key ${key}: ${(error as Error).message}`);
    }
  return { witnessKeys, required };
}

function readState(path: string, usage: (message: string) => Error): MonitorState | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw usage(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const state = JSON.parse(text) as MonitorState;
    if (state?.version !== 1 || typeof state.instance !== 'string') throw new Error('not a monitor state');
    return state;
  } catch {
    throw usage(`${path} is not a state file of agentry monitor`);
  }
}

function describe(report: MonitorReport, statePath: string): string {
  const lines = [
    `${report.instance}: ${report.agrees ? 'all agrees' : `${report.differences.length} difference${report.differences.length === 1 ? '' : 's'}`}`,
    ...Object.entries(report.logs).map(
      ([name, log]) =>
        `  ${name} log ${log.origin}: ${log.from === log.to ? `size ${log.to}, unchanged` : `${log.from} -> ${log.to}, consistent`}` +
        (log.cosignedBy.length > 0 ? `; cosigned by ${log.cosignedBy.join(', ')}` : ''),
    ),
    `  trust: ${report.classesChecked} class${report.classesChecked === 1 ? '' : 'es'} of ${report.keysChecked} key${report.keysChecked === 1 ? '' : 's'} re-derived from the receipts`,
    ...report.differences.map((difference) => `  DIFFERENCE (${difference.kind}): ${difference.message}`),
    ...report.keyChanges.map((change) =>
      change.event === 'key_added'
        ? `  key added: agent ${change.agentId} now has key ${change.key ?? '(hidden)'} (${change.time})`
        : change.event === 'key_rotated'
          ? `  key changed: agent ${change.agentId} from ${change.previousKey ?? '(hidden)'} to ${change.key ?? '(hidden)'} (${change.time})`
          : `  key revoked: agent ${change.agentId} no longer has ${change.previousKey ?? '(hidden)'} (${change.time})`,
    ),
    `  state kept in ${statePath}`,
  ];
  return `${lines.join('\n')}\n`;
}

export function registerMonitorCommand(program: Command, ctx: MonitorCommandContext): void {
  program
    .command('monitor')
    .description(
      "check an instance from outside: both logs only grew since the last run, every trust score follows from the logged receipts, and which agents' keys changed; exit 1 on any difference",
    )
    .argument('<instance-url>', "the instance's base URL")
    .option('--state <file>', `where the last run's checkpoints and evidence are kept (default: ./${DEFAULT_MONITOR_STATE})`)
    .option(
      '--key <verifier key>',
      "a trusted verifier key of the instance's logs; repeat for several (default: those seen on the first run)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--witness-key <verifier key>',
      "a trusted witness's cosignature verifier key (type 0x04, from its /.tlog/witness/key); repeat for several",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--require-cosignatures <n>', 'every checkpoint read must carry valid cosignatures from n of the --witness-key witnesses', wholeNumber(ctx.usage))
    .action(async (url: string, options: { state?: string; key?: string[]; witnessKey?: string[]; requireCosignatures?: number }) => {
      const statePath = resolve(options.state ?? DEFAULT_MONITOR_STATE);
      const state = readState(statePath, ctx.usage);
      const witnesses = witnessPolicy(options, ctx.usage);
      const report = await monitorInstance({ url, state, ...(options.key ? { keys: options.key } : {}), ...(witnesses ? { witnesses } : {}) });
      // Written whole, then renamed: an interrupted run leaves the last state, never half of one.
      writeFileSync(`${statePath}.tmp`, `${JSON.stringify(report.state)}\n`);
      renameSync(`${statePath}.tmp`, statePath);
      const { state: _kept, ...printed } = report;
      ctx.stdout(ctx.json() ? `${JSON.stringify(printed, null, 2)}\n` : describe(report, statePath));
      if (!report.agrees) ctx.differed();
    });
}
