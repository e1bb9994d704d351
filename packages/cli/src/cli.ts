/**
 * The `agentry` command line. `runCli` takes argv and an io object and returns the exit code, so
 * tests run it in-process against a real service.
 *
 * Exit codes: 0 ok, 1 the service refused or failed, 2 usage (bad flags, bad local file),
 * 3 network (service unreachable or 503), 4 authentication (401/403, not logged in), 5 rate limited.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  AgentRunner,
  AgentRunnerError,
  AgentryClient,
  AgentryError,
  AgentryNetworkError,
  FINAL_TASK_STATUSES,
  KeyFileError,
  buildReceipt,
  generateKey,
  generateSignerKey,
  isNoteKeyName,
  loadKey,
  publicKeyString,
  saveKey,
  signChallenge,
  signReceipt,
  TlogVerificationError,
  verifyAgentHistory,
  requireCosignatures,
  verifyReceipt,
  verifyReceiptProof,
  type AgentHistory,
  type TaskDelivery,
} from '@agentry/sdk';
import { configPath, readConfig, removeToken, writeConfig } from './config.ts';
import { registerMonitorCommand, wholeNumber, witnessPolicy } from './commands/monitor.ts';
import { registerWebhookDevCommands } from './commands/webhook-dev.ts';
import { initProject } from './init.ts';
import { installedSdkSource } from './sdk-source.ts';
import { checkpointFromFile, originOf, rememberCheckpoint, rememberedCheckpoint, verifyCheckpoint, verifyConsistency } from './log.ts';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  readStdin?: () => Promise<string>;
  /** Aborted to stop long-running commands (`tasks serve`, `tasks watch`); SIGTERM/SIGINT in the binary. */
  signal?: AbortSignal;
}

export const EXIT = { ok: 0, service: 1, usage: 2, network: 3, auth: 4, rateLimited: 5 } as const;

const DEFAULT_URL = 'http://127.0.0.1:8080';
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** What a registration declares when neither --protocols nor a manifest says: the protocol its delivery mode speaks. */
const PROTOCOLS_BY_DELIVERY_MODE: Record<string, string[]> = { poll: ['rest'], webhook: ['webhook'], a2a: ['a2a'] };

class UsageError extends Error {}
class AuthNeeded extends Error {}
/** The service refused what the command needs, for a reason the message explains (exit 1). */
class ServiceRefused extends Error {}

interface GlobalOptions {
  url?: string;
  json?: boolean;
  quiet?: boolean;
}

function list(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
}

function parseJsonOption(name: string, value: string | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new UsageError(`${name} is not valid JSON`);
  }
}

/** A JSON option given inline, or as `@file` to read it from a file. */
function jsonOrFile(name: string, value: string | undefined): unknown {
  return value?.startsWith('@') ? readJsonFile(value.slice(1)) : parseJsonOption(name, value);
}

function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

function readJsonFile(path: string): Record<string, unknown> {
  const text = readTextFile(path);
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw new UsageError(`${path} is not a JSON object`);
  }
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : typeof value === 'object' ? JSON.stringify(value) : String(value));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) =>
    `${values
      .map((value, index) => value.padEnd(widths[index]!))
      .join('  ')
      .trimEnd()}\n`;
  return line(columns.map((column) => column.toUpperCase())) + rows.map((row) => line(columns.map((column) => cell(row[column])))).join('');
}

/** `name: value` lines; a field without a value (null, as an untitled task's title) is left out rather than printed as "null". */
function fields(record: Record<string, unknown>, names: string[]): string {
  return names
    .filter((name) => record[name] !== undefined && record[name] !== null)
    .map((name) => `${name}: ${typeof record[name] === 'object' && record[name] !== null ? JSON.stringify(record[name]) : String(record[name])}\n`)
    .join('');
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const stored = readConfig(io.env);
  const program = new Command();
  let exitCode: number = EXIT.ok;

  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  const baseUrl = () => globals().url ?? io.env.AGENTRY_URL ?? stored.url ?? DEFAULT_URL;
  const token = () => io.env.AGENTRY_TOKEN ?? stored.token ?? null;
  const client = (options: { auth?: boolean } = {}) => {
    if (options.auth && !token()) throw new AuthNeeded('not logged in: run `agentry login` (or set AGENTRY_TOKEN)');
    return new AgentryClient({ baseUrl: baseUrl(), token: token() });
  };
  const json = () => globals().json === true;
  const out = (value: unknown, human: () => string) => {
    if (globals().quiet) {
      const record = value as { id?: unknown; data?: { id?: unknown }; agent?: { id?: unknown }; receipt?: { receiptId?: unknown } } | null;
      const id = record?.id ?? record?.data?.id ?? record?.agent?.id ?? record?.receipt?.receiptId;
      if (id !== undefined) io.stdout(`${String(id)}\n`);
      return;
    }
    io.stdout(json() ? `${JSON.stringify(value, null, 2)}\n` : human());
  };

  /** Shows a progress line on stderr when the work takes more than a second. */
  const progress = async <T>(label: string, work: Promise<T>): Promise<T> => {
    const timer = setTimeout(() => io.stderr(`${label}...\n`), 1000);
    try {
      return await work;
    } finally {
      clearTimeout(timer);
    }
  };

  const key = (path: string | undefined) => {
    if (!path) throw new UsageError('--key FILE is required (create one with `agentry keygen`)');
    return loadKey(path);
  };

  program
    .name('agentry')
    .version(VERSION, '-V, --version', 'print the version')
    .description('Agentry from the command line: register and claim agents, serve and submit tasks, sign receipts.')
    .option('--url <url>', `the service's base URL (env AGENTRY_URL; default ${DEFAULT_URL})`)
    .option('--json', 'machine-readable JSON output')
    .option('-q, --quiet', 'print only the id of what was created or shown (for shell scripts)')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .addHelpText(
      'after',
      `\nExit codes: 0 ok, 1 the service refused or failed, 2 usage, 3 service unreachable, 4 not logged in or not allowed, 5 rate limited.\nSettings are kept in ${configPath(io.env)}.`,
    );

  program
    .command('login')
    .description('log in and store the session token (or paste a token or API key with --token)')
    .option('--email <email>', 'account email')
    .option('--password <password>', 'account password (env AGENTRY_PASSWORD)')
    .option('--token <token>', 'a session token or an API key (agk_...) to store instead of logging in')
    .action(async (options: { email?: string; password?: string; token?: string }) => {
      let newToken: string;
      if (options.token) {
        newToken = options.token;
        // Any authenticated read checks the token; listing one's agents accepts sessions and keys alike.
        await progress('checking the token', new AgentryClient({ baseUrl: baseUrl(), token: newToken }).listAgents({ limit: 1, offset: 0 } as never));
      } else {
        const password = options.password ?? io.env.AGENTRY_PASSWORD;
        if (!options.email || !password) throw new UsageError('give --email and --password (or AGENTRY_PASSWORD), or --token');
        newToken = (await progress('logging in', client().login(options.email, password))).token;
      }
      const path = writeConfig(io.env, { ...readConfig(io.env), url: baseUrl(), token: newToken });
      out({ url: baseUrl(), config: path }, () => `Logged in to ${baseUrl()}; token stored in ${path}\n`);
    });

  program
    .command('signup')
    .description('create an account on the built-in identity provider and store its session token')
    .requiredOption('--email <email>')
    .option('--password <password>', 'at least 8 characters (env AGENTRY_PASSWORD)')
    .action(async (options: { email: string; password?: string }) => {
      const password = options.password ?? io.env.AGENTRY_PASSWORD;
      if (!password) throw new UsageError('give --password (or AGENTRY_PASSWORD)');
      const session = await progress('signing up', client().signup(options.email, password));
      const path = writeConfig(io.env, { ...readConfig(io.env), url: baseUrl(), token: session.token });
      out({ url: baseUrl(), config: path, account: session.account }, () => `Signed up and logged in to ${baseUrl()}; token stored in ${path}\n`);
    });

  program
    .command('logout')
    .description('revoke the stored session (API keys stay valid) and forget the token')
    .action(async () => {
      const current = stored.token;
      if (current && !current.startsWith('agk_')) {
        await client()
          .logout()
          .catch((error: unknown) => {
            if (!(error instanceof AgentryError && error.status === 401)) throw error;
          });
      }
      removeToken(io.env);
      out({ loggedOut: true }, () => 'Logged out.\n');
    });

  program
    .command('keygen')
    .description('create an Ed25519 key file (PKCS#8 PEM, mode 0600) and print its public key')
    .option('-o, --out <file>', 'where to write the key', 'agent.key')
    .option('--force', 'overwrite an existing file')
    .action((options: { out: string; force?: boolean }) => {
      const privateKey = generateKey();
      saveKey(options.out, privateKey, { overwrite: options.force === true });
      const pubkey = publicKeyString(privateKey);
      out({ keyFile: options.out, pubkey }, () => `Wrote ${options.out}\npubkey: ${pubkey}\n`);
    });

  program
    .command('init')
    .description('write a new agent project here: package.json, agent.ts (AgentRunner), a key file, .env.example, README.md')
    .argument('[dir]', 'the project folder', '.')
    .option('--poll', 'the agent long-polls for tasks (default)')
    .option('--webhook', 'tasks arrive as signed webhooks')
    .option('--a2a', 'tasks arrive as A2A messages (an @a2a-js/sdk server)')
    .option(
      '--sdk <spec>',
      "package.json's spec for @agentry/sdk (default: the tarball in $AGENTRY_KIT, else the tarball or folder this agentry's SDK was installed from)",
    )
    .option('--force', 'overwrite existing files, the key file included')
    .action((dir: string, options: { poll?: boolean; webhook?: boolean; a2a?: boolean; sdk?: string; force?: boolean }) => {
      if ([options.poll, options.webhook, options.a2a].filter(Boolean).length > 1) throw new UsageError('choose one of --poll, --webhook and --a2a');
      const mode = options.webhook ? 'webhook' : options.a2a ? 'a2a' : 'poll';
      const kit = io.env.AGENTRY_KIT;
      const sdk = options.sdk
        ? { spec: options.sdk, from: '--sdk' }
        : kit
          ? { spec: `file:${resolvePath(kit, `agentry-sdk-${VERSION}.tgz`)}`, from: 'the tarball in AGENTRY_KIT' }
          : installedSdkSource(VERSION);
      if (!sdk) {
        throw new UsageError(
          `@agentry/sdk is not on the public npm registry, and this agentry cannot tell where its own SDK came from. Name the SDK tarball ` +
            `(\`npm run pack:kit\` in a checkout of Agentry writes it to packs/):\n  agentry init ${dir} --${mode} --sdk file:/path/to/agentry-sdk-${VERSION}.tgz\n` +
            `or set AGENTRY_KIT to the folder that holds it.`,
        );
      }
      let made: ReturnType<typeof initProject>;
      try {
        made = initProject({ dir, mode, force: options.force === true, sdkSpec: sdk.spec });
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      out(
        { dir: resolvePath(dir), files: made.written, pubkey: made.pubkey, sdk: sdk.spec },
        () =>
          `Wrote ${made.written.join(', ')} in ${resolvePath(dir)}\npubkey: ${made.pubkey}\n` +
          `@agentry/sdk: ${sdk.spec} (${sdk.from})\nNext: see README.md there (npm install, register, npm start).\n`,
      );
    });

  program
    .command('register')
    .description('register an agent from flags or an agent.json manifest')
    .option('-m, --manifest <file>', 'agent.json with the registration fields')
    .option('--name <name>')
    .option('--description <text>')
    .option('--endpoint <url>', 'webhook endpoint (not needed with --delivery-mode poll)')
    .option('--manifest-url <url>', 'the agent.json (or A2A card, MCP server.json) the service reads the registration from')
    .option('--key <file>', 'registration key file: its public key is registered')
    .option('--capabilities <list>', 'comma-separated capability slugs')
    .option('--categories <list>', 'comma-separated category slugs')
    .option('--tags <list>', 'comma-separated tags')
    .option('--input-schema <json>', "the fields a task gives the agent, as JSON (or @file): a plain-language task's description is read into them")
    .option('--protocols <list>', 'comma-separated protocols it speaks (default: the one its delivery mode uses: poll rest, webhook webhook, a2a a2a)')
    .addOption(new Option('--delivery-mode <mode>', 'how it takes tasks (default: webhook with --endpoint, else poll)').choices(['webhook', 'poll', 'a2a']))
    .addOption(new Option('--visibility <visibility>').choices(['public', 'org', 'private']))
    .option('--provisional', 'register without an account; prints the claim URL')
    .action(async (options: Record<string, string | boolean | undefined>) => {
      const body: Record<string, unknown> = options.manifest ? readJsonFile(options.manifest as string) : {};
      const set = (name: string, value: unknown) => value !== undefined && (body[name] = value);
      set('name', options.name);
      set('description', options.description);
      set('endpoint', options.endpoint);
      set('capabilities', list(options.capabilities as string | undefined));
      set('categories', list(options.categories as string | undefined));
      set('tags', list(options.tags as string | undefined));
      set('protocols', list(options.protocols as string | undefined));
      set('deliveryMode', options.deliveryMode);
      set('visibility', options.visibility);
      set('manifestUrl', options.manifestUrl);
      set('inputSchema', jsonOrFile('--input-schema', options.inputSchema as string | undefined));
      if (options.provisional && !options.key && !body.pubkey) {
        throw new UsageError('a provisional agent is registered with its key: create one with `agentry keygen --out agent.key`, then give --key agent.key');
      }
      if (options.key) body.pubkey = publicKeyString(key(options.key as string));
      // A manifest URL is read by the service, which then says what is still missing.
      if (!body.manifestUrl) {
        if (!body.name || !body.description) throw new UsageError('an agent needs --name and --description (or a manifest with them)');
        const mode = (body.deliveryMode as string | undefined) ?? (body.endpoint ? 'webhook' : 'poll');
        body.protocols ??= PROTOCOLS_BY_DELIVERY_MODE[mode];
      }
      const secretLine = (secret: string | null) =>
        secret ? `Webhook secret (shown once; store it now, \`agentry agents webhook-secret\` rotates it): ${secret}\n` : '';
      /**
       * Quiet mode prints the id and, for a webhook agent, the secret on the next line: the secret is
       * shown only once, so a script must be able to keep it. Warnings go to stderr in every mode.
       */
      const report = (answer: { agent: { id: string }; webhookSecret: string | null; warnings: { message: string }[] }, human: () => string) => {
        for (const warning of answer.warnings) io.stderr(`warning: ${warning.message}\n`);
        if (globals().quiet) io.stdout(`${answer.agent.id}\n${answer.webhookSecret ? `${answer.webhookSecret}\n` : ''}`);
        else out(answer, human);
      };
      if (options.provisional) {
        const answer = await progress('registering', client().registerProvisional(body as never));
        report(
          answer,
          () =>
            `Registered provisional agent ${answer.agent.id} (${answer.agent.slug})\n` +
            `To claim it: agentry claim ${answer.agent.id} --key <key file>, or in the browser: ${answer.claimPageUrl}\n` +
            secretLine(answer.webhookSecret),
        );
      } else {
        const answer = await progress('registering', client({ auth: true }).registerAgent(body as never));
        report(answer, () => `Registered agent ${answer.agent.id} (${answer.agent.slug})\n${secretLine(answer.webhookSecret)}`);
      }
    });

  program
    .command('claim')
    .description('claim a provisional agent: fetch the challenge, sign it with the key file, submit')
    .argument('<agentId>')
    .requiredOption('--key <file>', 'the registration key file')
    .action(async (agentId: string, options: { key: string }) => {
      const privateKey = key(options.key);
      const api = client({ auth: true });
      const challenge = await progress('fetching the challenge', api.claimChallenge(agentId));
      const answer = await progress('claiming', api.claim(agentId, signChallenge(privateKey, challenge.nonce)));
      out(answer, () => `Claimed ${agentId}: you own it now.\n`);
    });

  program
    .command('whoami')
    .description('the account behind the stored login (or AGENTRY_TOKEN), and the service it is for')
    .action(async () => {
      const account = await client({ auth: true }).account();
      const credential = token()!.startsWith('agk_') ? 'API key' : 'session';
      out({ url: baseUrl(), credential, account }, () =>
        account.kind === 'agent'
          ? `agent ${account.agentId} (account ${account.id}) at ${baseUrl()}, by ${credential}\n`
          : `${account.email ?? account.id} (account ${account.id}) at ${baseUrl()}, by ${credential}\n`,
      );
    });

  program
    .command('trust')
    .description("a key's trust per task class: give its ed25519: public key, or an agent id to read its registration key")
    .argument('<pubkey|agent>')
    .option('--explain', 'why: the evidence that counted, with its weight, and what did not count and why')
    .option('--task-class <class>', 'only this task class')
    .action(async (subject: string, options: { explain?: boolean; taskClass?: string }) => {
      const api = client();
      let pubkey = subject;
      let agent: Awaited<ReturnType<AgentryClient['getAgent']>> | null = null;
      if (!subject.startsWith('ed25519:')) {
        agent = await api.getAgent(subject);
        if (!agent.registrationPubkey) throw new UsageError(`agent ${subject} has no registration key, so no trust of its own`);
        pubkey = agent.registrationPubkey;
      }
      const trust = await progress('reading trust', options.explain || options.taskClass ? api.explainTrust(pubkey, options.taskClass) : api.trust(pubkey));
      const unproven =
        agent && agent.keyVerified === false
          ? `keyVerified: false: discovery and routing do not count this trust until the owner proves the key (\`agentry agents key prove ${agent.id} --key <file>\`, or a heartbeat signed by the key)\n`
          : '';
      out(
        { pubkey, ...(agent ? { agentId: agent.id, keyVerified: agent.keyVerified } : {}), trust },
        () => `pubkey: ${pubkey}\n${unproven}${trustLines(trust as never)}`,
      );
    });

  const agents = program.command('agents').description('your agents');
  agents
    .command('ls')
    .description('list your agents')
    .action(async () => {
      const answer = await client({ auth: true }).listAgents({ limit: 100, offset: 0 } as never);
      out(answer, () => table(answer.data as never, ['id', 'slug', 'status', 'deliveryMode', 'availability']));
    });
  agents
    .command('show')
    .description("show an agent's record")
    .argument('<id>')
    .action(async (id: string) => {
      const agent = await client().getAgent(id);
      out(agent, () =>
        fields(agent as never, [
          'id',
          'name',
          'slug',
          'status',
          'description',
          'endpoint',
          'deliveryMode',
          'visibility',
          'registrationPubkey',
          'keyVerified',
          'availability',
          'capabilities',
          'categories',
        ]),
      );
    });
  agents
    .command('wait')
    .description('wait until the agent is available (its first heartbeat or poll has arrived); exit 1 on timeout')
    .argument('<id>')
    .option('--timeout <seconds>', 'give up after this long', (value) => Number(value), 30)
    .action(async (id: string, options: { timeout: number }) => {
      const api = client();
      const deadline = Date.now() + options.timeout * 1000;
      for (;;) {
        const agent = await api.getAgent(id);
        if (agent.availability === 'available') {
          out(agent, () => `${id} is available.\n`);
          return;
        }
        if (Date.now() > deadline || io.signal?.aborted) {
          io.stderr(`error: ${id} is still ${agent.availability} after ${options.timeout} s; is \`agentry tasks serve\` running?\n`);
          exitCode = EXIT.service;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
  agents
    .command('update')
    .description('change registration fields')
    .argument('<id>')
    .option('--name <name>')
    .option('--description <text>')
    .option('--endpoint <url>')
    .option('--capabilities <list>')
    .addOption(new Option('--delivery-mode <mode>').choices(['webhook', 'poll', 'a2a']))
    .option('--set <json>', 'a JSON object of fields to change')
    .action(async (id: string, options: Record<string, string | undefined>) => {
      const body = { ...((parseJsonOption('--set', options.set) as Record<string, unknown> | undefined) ?? {}) };
      if (options.name !== undefined) body.name = options.name;
      if (options.description !== undefined) body.description = options.description;
      if (options.endpoint !== undefined) body.endpoint = options.endpoint;
      if (options.capabilities !== undefined) body.capabilities = list(options.capabilities);
      if (options.deliveryMode !== undefined) body.deliveryMode = options.deliveryMode;
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give a field flag or --set');
      const agent = await client({ auth: true }).updateAgent(id, body as never);
      out(agent, () => `Updated ${id}.\n`);
    });
  agents
    .command('delete')
    .description('delete an agent with its keys and profile')
    .argument('<id>')
    .action(async (id: string) => {
      await client({ auth: true }).deleteAgent(id);
      out({ deleted: id }, () => `Deleted ${id}.\n`);
    });
  const agentKey = agents.command('key').description("the agent's registration key");
  agentKey
    .command('prove')
    .description('prove the agent holds its registration key (as its owner), so discovery and routing show its trust')
    .argument('<id>')
    .requiredOption('--key <file>', 'the registration key file')
    .action(async (id: string, options: { key: string }) => {
      const privateKey = key(options.key);
      const answer = await progress(
        'proving',
        client({ auth: true }).proveKey(id, (nonce) => signChallenge(privateKey, nonce)),
      );
      out(answer, () => `Proved the key of ${id}: its trust now counts.\n`);
    });
  agentKey
    .command('set')
    .description("give the agent a new registration key (as its owner): the key file's public half, proved by its signature")
    .argument('<id>')
    .requiredOption('--key <file>', 'the new key file (create one with `agentry keygen`)')
    .action(async (id: string, options: { key: string }) => {
      const privateKey = key(options.key);
      const answer = await progress(
        'setting the key',
        client({ auth: true }).setKey(id, publicKeyString(privateKey), (nonce) => signChallenge(privateKey, nonce)),
      );
      out(answer, () => `Set the key of ${id} to ${publicKeyString(privateKey)}.\n`);
    });
  agents
    .command('webhook-secret')
    .description("issue (or rotate) the agent's whsec_ webhook secret; shown once")
    .argument('<id>')
    .action(async (id: string) => {
      const answer = await client({ auth: true }).rotateWebhookSecret(id);
      out(answer, () => `${answer.secret}\n`);
    });

  const keys = program.command('keys').description('API keys');
  keys
    .command('create')
    .description('create an API key (shown once); --agent makes it act as that agent')
    .requiredOption('--name <name>')
    .option('--agent <id>')
    .action(async (options: { name: string; agent?: string }) => {
      const answer = await client({ auth: true }).createApiKey({ name: options.name, ...(options.agent ? { agentId: options.agent } : {}) } as never);
      out(answer, () => `${(answer as { key?: string; secret?: string }).key ?? (answer as { secret?: string }).secret ?? JSON.stringify(answer)}\n`);
    });
  keys
    .command('ls')
    .description('list API keys (prefixes only)')
    .action(async () => {
      const answer = await client({ auth: true }).listApiKeys();
      out(answer, () => table((answer as { data: Record<string, unknown>[] }).data, ['id', 'name', 'prefix', 'agentId', 'createdAt']));
    });
  keys
    .command('revoke')
    .description('revoke an API key')
    .argument('<id>')
    .action(async (id: string) => {
      await client({ auth: true }).revokeApiKey(id);
      out({ revoked: id }, () => `Revoked ${id}.\n`);
    });

  const account = program.command('account').description('your account');
  account
    .command('signing-key')
    .description('keys your account signs trust receipts with')
    .command('add')
    .description('register a key your account signs outcome receipts with (proven by its signature)')
    .requiredOption('--key <file>', 'the key file (create one with `agentry keygen`)')
    .action(async (options: { key: string }) => {
      const added = await client({ auth: true }).registerSigningKey(key(options.key));
      out(added, () => `Registered signing key ${added.pubkey}.\n`);
    });

  const receipt = program.command('receipt').description('trust receipts');
  receipt
    .command('sign')
    .description('build and sign a receipt (the key is the issuer); prints the JSON')
    .requiredOption('--key <file>', "the issuer's key file")
    .addOption(new Option('--kind <kind>').choices(['offer', 'decision', 'outcome']).makeOptionMandatory())
    .requiredOption('--task-class <class>', 'dotted task class, e.g. code.review')
    .requiredOption('--issuer <agent>', "the issuing agent's id")
    .requiredOption('--subject <agent>', "the counterparty's agent id")
    .requiredOption('--subject-pubkey <pubkey>', "the counterparty's ed25519: public key")
    .requiredOption('--payload <json>', 'the payload for the kind')
    .option('--correlation-id <uuid>')
    .option('-o, --out <file>', 'write to a file instead of stdout')
    .action((options: Record<string, string>) => {
      const privateKey = key(options.key);
      const signed = signReceipt(
        buildReceipt({
          kind: options.kind as 'offer',
          taskClass: options.taskClass!,
          issuer: { agent: options.issuer!, pubkey: publicKeyString(privateKey) },
          subject: { agent: options.subject!, pubkey: options.subjectPubkey! },
          payload: parseJsonOption('--payload', options.payload) as Record<string, unknown>,
          ...(options.correlationId ? { correlationId: options.correlationId } : {}),
        }),
        privateKey,
      );
      const text = `${JSON.stringify(signed, null, 2)}\n`;
      if (options.out) writeFileSync(options.out, text);
      else io.stdout(text);
    });
  receipt
    .command('verify')
    .description("check a receipt file's signature locally (exit 1 when it does not verify)")
    .argument('<file>')
    .action((file: string) => {
      const verified = verifyReceipt(readJsonFile(file));
      out({ verified }, () => (verified ? 'Signature verifies.\n' : 'Signature does NOT verify.\n'));
      if (!verified) exitCode = EXIT.service;
    });
  receipt
    .command('submit')
    .description('submit a receipt file to the service')
    .argument('<file>')
    .action(async (file: string) => {
      const answer = await progress('submitting', client().submitReceipt(readJsonFile(file)));
      out(answer, () => `${answer.message}\nreceiptId: ${answer.receipt.receiptId}\n`);
    });

  const collect = (value: string, previous: string[] = []) => [...previous, value];
  const log = program.command('log').description('verify transparency-log proofs offline, and that a log only grows');
  log
    .command('verify')
    .description("check a receipt's proof (c2sp.org/tlog-proof@v1, from GET /v1/trust-receipts/:id/proof) against the log's key; exit 1 when it fails")
    .argument('<proof-file>')
    .requiredOption('--key <verifier key>', 'a trusted verifier key of the log (from /.tlog/keys); repeat for several', collect)
    .option('--origin <origin>', "the log's origin; a proof from another log fails")
    .option('--receipt <file>', 'the receipt the proof must be about (JSON; compared by its RFC 8785 form)')
    .action((file: string, options: { key: string[]; origin?: string; receipt?: string }) => {
      const text = readTextFile(file);
      try {
        const verified = verifyReceiptProof(text, {
          keys: options.key,
          ...(options.origin ? { origin: options.origin } : {}),
          ...(options.receipt ? { receipt: readJsonFile(options.receipt) } : {}),
        });
        rememberCheckpoint(io.env, verified.checkpoint);
        const summary = {
          verified: true,
          index: verified.index,
          origin: verified.checkpoint.origin,
          size: verified.checkpoint.size,
          receiptId: verified.receipt.receiptId,
        };
        out(summary, () => `Proof verifies: receipt ${String(summary.receiptId)} is entry ${summary.index} of ${summary.origin} (size ${summary.size}).\n`);
      } catch (error) {
        if (!(error instanceof TlogVerificationError)) throw error;
        out({ verified: false, reason: error.message }, () => `Proof does NOT verify: ${error.message}\n`);
        exitCode = EXIT.service;
      }
    });
  log
    .command('verify-agent')
    .description("check an agent's registry log history (GET /v1/agents/:id/history): every event's proof against one signed checkpoint; exit 1 when it fails")
    .argument('<id>', "the agent's id")
    .option(
      '--key <verifier key>',
      'a trusted verifier key of the registry log; repeat for several (default: the keys the service lists, trusted as given)',
      collect,
    )
    .option('--origin <origin>', "the registry log's origin; a checkpoint of another log fails")
    .option('--history <file>', 'verify this saved history (the answer, or its data) instead of fetching it: nothing is asked of the service')
    .option(
      '--witness-key <verifier key>',
      "a trusted witness's cosignature verifier key (type 0x04, from its /.tlog/witness/key); repeat for several",
      collect,
    )
    .option(
      '--require-cosignatures <n>',
      "the registry log's checkpoint as served must carry valid cosignatures from n of the --witness-key witnesses and extend the history's checkpoint",
      wholeNumber((message) => new UsageError(message)),
    )
    .action(async (id: string, options: { key?: string[]; origin?: string; history?: string; witnessKey?: string[]; requireCosignatures?: number }) => {
      if (options.history && !options.key) throw new UsageError('--history is checked offline: give the log key with --key');
      const witnesses = witnessPolicy(options, (message) => new UsageError(message));
      const saved = options.history ? (readJsonFile(options.history) as { data?: unknown }) : null;
      const history = (saved ? (saved.data ?? saved) : await progress('fetching the history', client().agentHistory(id))) as AgentHistory;
      if (history.agentId !== id) throw new UsageError(`the history given is agent ${history.agentId}'s, not ${id}'s`);
      const keys = options.key ?? (await client().logKeys());
      try {
        const verified = verifyAgentHistory(history, { keys, ...(options.origin ? { origin: options.origin } : {}) });
        // Offline, the history's own checkpoint must carry the cosignatures; online, the checkpoint served now, which extends it.
        const cosignatures = !witnesses
          ? []
          : options.history
            ? requireCosignatures(history.checkpoint ?? '', witnesses.witnessKeys, witnesses.required)
            : await client().checkWitnessed(verified.checkpoint, 'registry', keys, witnesses);
        if (verified.checkpoint) rememberCheckpoint(io.env, verified.checkpoint);
        const summary = {
          verified: true,
          agentId: id,
          origin: verified.checkpoint?.origin ?? null,
          size: verified.checkpoint?.size ?? null,
          events: verified.events,
          pending: verified.pending,
          cosignedBy: cosignatures.map((cosignature) => cosignature.witness.name),
        };
        out(
          summary,
          () =>
            `History verifies: ${verified.events.length} event${verified.events.length === 1 ? '' : 's'} of agent ${id} in ${summary.origin ?? 'the registry log'}` +
            `${summary.size === null ? '' : ` (size ${summary.size})`}${verified.pending ? `; ${verified.pending} not logged yet` : ''}` +
            `${summary.cosignedBy.length > 0 ? `; witnessed by ${summary.cosignedBy.join(', ')}` : ''}.\n` +
            verified.events.map((event) => `  ${event.logIndex}  ${event.time}  ${event.event}  ${JSON.stringify(event.values)}\n`).join(''),
        );
      } catch (error) {
        if (!(error instanceof TlogVerificationError)) throw error;
        out({ verified: false, agentId: id, reason: error.message }, () => `History does NOT verify: ${error.message}\n`);
        exitCode = EXIT.service;
      }
    });
  log
    .command('keygen')
    .description('make a log signing key (for LOG_SIGNING_KEY): prints the signer key (secret) and its verifier key')
    .argument('<name>', "the key's name, e.g. the log's origin")
    .action((name: string) => {
      if (!isNoteKeyName(name)) throw new UsageError('a key name is not empty and holds no spaces or +');
      const made = generateSignerKey(name);
      out(made, () => `signer key (secret; LOG_SIGNING_KEY): ${made.signerKey}\nverifier key: ${made.verifierKey}\n`);
    });
  log
    .command('consistency')
    .description(
      "check that a service's receipt log still extends the checkpoint of size N seen before (remembered by `log verify`, or given with --checkpoint)",
    )
    .argument('<url>', "the service's base URL")
    .requiredOption('--from <n>', 'the size of the earlier checkpoint', (value) => {
      if (!/^(0|[1-9][0-9]*)$/.test(value)) throw new UsageError('--from is a tree size (a whole number)');
      return Number(value);
    })
    .option('--checkpoint <file>', 'the earlier checkpoint (or a proof file carrying it)')
    .option('--key <verifier key>', 'trusted verifier key; repeat for several (default: the keys the service lists, trusted as given)', collect)
    .action(async (url: string, options: { from: number; checkpoint?: string; key?: string[] }) => {
      const api = new AgentryClient({ baseUrl: url });
      const keys = options.key ?? (await api.logKeys());
      const latest = await api.logCheckpoint();
      const earlier = options.checkpoint ? checkpointFromFile(readTextFile(options.checkpoint)) : rememberedCheckpoint(io.env, originOf(latest), options.from);
      if (!earlier) throw new UsageError(`no checkpoint of size ${options.from} of this log seen before: give it with --checkpoint <file>`);
      try {
        const from = verifyCheckpoint(earlier, keys);
        if (from.size !== options.from) throw new UsageError(`the checkpoint given has size ${from.size}, not ${options.from}`);
        const to = verifyCheckpoint(latest, keys, from.origin);
        verifyConsistency({ from: earlier, to: latest, proof: await api.logConsistency(from.size, to.size), keys });
        rememberCheckpoint(io.env, to);
        const summary = { consistent: true, origin: to.origin, from: from.size, to: to.size, root: to.root.toString('base64') };
        out(summary, () => `Consistent: ${to.origin} at size ${to.size} extends the tree of size ${from.size} seen before.\n`);
      } catch (error) {
        if (!(error instanceof TlogVerificationError)) throw error;
        out({ consistent: false, reason: error.message }, () => `NOT consistent: ${error.message}\n`);
        exitCode = EXIT.service;
      }
    });

  const tasks = program.command('tasks').description('submit, follow and serve tasks');
  tasks
    .command('submit')
    .description('submit a task')
    .requiredOption('--description <text>')
    .option('--title <text>')
    .option('--input <json>', 'the input object')
    .option('--agent <id>', 'send to this agent')
    .option('--capabilities <list>')
    .addOption(new Option('--priority <priority>').choices(['low', 'normal', 'high', 'urgent']))
    .option('--expires-in <minutes>', 'expiry in minutes', (value) => Number(value))
    .option('--idempotency-key <key>', 'repeat a submission safely (generated when not given)')
    .option('--wait', 'wait until the task finishes and print the result')
    .action(async (options: Record<string, string | number | boolean | undefined>) => {
      const body: Record<string, unknown> = { description: options.description };
      if (options.title) body.title = options.title;
      if (options.input !== undefined) body.input = parseJsonOption('--input', options.input as string);
      if (options.agent) body.agentId = options.agent;
      if (options.capabilities) body.capabilities = list(options.capabilities as string);
      if (options.priority) body.priority = options.priority;
      if (options.expiresIn !== undefined) body.expiresInMinutes = options.expiresIn;
      const api = client({ auth: true });
      let task = await progress(
        'submitting',
        api.submitTask(body as never, options.idempotencyKey ? { idempotencyKey: options.idempotencyKey as string } : {}),
      );
      if (options.wait) task = await watchTask(api, task.id);
      printTask(task);
    });
  tasks
    .command('extract')
    .description('preview the input a plain-language task would carry for an agent (nothing is created)')
    .requiredOption('--description <text>')
    .option('--title <text>')
    .option('--agent <id>', "read the fields of this agent's input schema")
    .option('--input-schema <json>', 'or of this schema')
    .action(async (options: { description: string; title?: string; agent?: string; inputSchema?: string }) => {
      if (!options.agent && !options.inputSchema) throw new UsageError('give --agent or --input-schema');
      const answer = await client().extract({
        description: options.description,
        ...(options.title ? { title: options.title } : {}),
        ...(options.agent ? { agentId: options.agent } : {}),
        ...(options.inputSchema ? { inputSchema: parseJsonOption('--input-schema', options.inputSchema) as Record<string, never> } : {}),
      });
      out(answer, () => fields(answer as never, ['input', 'missing']));
    });
  tasks
    .command('cancel')
    .description('cancel a task you submitted that has not finished')
    .argument('<id>')
    .action(async (id: string) => printTask(await client({ auth: true }).cancelTask(id)));
  tasks
    .command('rate')
    .description('rate a completed task you submitted (once)')
    .argument('<id>')
    .requiredOption('--score <n>', '1 to 5', (value) => Number(value))
    .option('--comment <text>')
    .action(async (id: string, options: { score: number; comment?: string }) => {
      const answer = await client({ auth: true }).rateTask(id, { score: options.score, ...(options.comment ? { comment: options.comment } : {}) });
      out(answer, () => `Rated ${id}: ${options.score}.\n`);
    });
  tasks
    .command('receipt')
    .description("sign and submit your outcome receipt about a finished task you submitted: task-bound evidence, which weighs fully in the agent's trust")
    .argument('<id>')
    .requiredOption(
      '--key <file>',
      'your key: a signing key registered with `agentry account signing-key add`, or the key of an agent you own (then give --issuer)',
    )
    .addOption(new Option('--outcome <outcome>', 'how the task went').choices(['success', 'failure', 'partial', 'rolled_back']).makeOptionMandatory())
    .option('--issuer <agent>', 'the id of your agent whose key --key is (default: an account signing key)')
    .action(async (id: string, options: { key: string; outcome: 'success'; issuer?: string }) => {
      const answer = await client({ auth: true }).signTaskOutcome(id, options.outcome, key(options.key), options.issuer ? { issuerAgent: options.issuer } : {});
      out(answer, () => `${answer.message}\n`);
    });
  tasks
    .command('get')
    .description('show a task')
    .argument('<id>')
    .action(async (id: string) => printTask(await client({ auth: true }).getTask(id)));
  tasks
    .command('ls')
    .description('list your tasks (--role agent: tasks assigned to your agents)')
    .addOption(new Option('--role <role>').choices(['requester', 'agent']))
    .action(async (options: { role?: string }) => {
      const answer = await client({ auth: true }).listTasks({ limit: 50, offset: 0, ...(options.role ? { role: options.role } : {}) } as never);
      out(answer, () => table(answer.data as never, ['id', 'status', 'title', 'priority', 'createdAt']));
    });
  tasks
    .command('watch')
    .description('follow a task until it finishes')
    .argument('<id>')
    .action(async (id: string) => printTask(await watchTask(client({ auth: true }), id)));
  tasks
    .command('serve')
    .description('serve an agent: run CMD for each task (input JSON on stdin, stdout is the result, non-zero exit is the error)')
    .requiredOption('--agent <id>')
    .requiredOption('--exec <cmd>', 'shell command run per task')
    .option('--key <file>', 'registration key (signs heartbeats and polls; needed for provisional agents)')
    .addOption(new Option('--mode <mode>', 'how tasks arrive').choices(['poll', 'webhook']).default('poll'))
    // 0: a free port the system picks (the service itself usually has 8080); the URL is printed.
    .option('--port <port>', 'webhook mode: port to listen on (default: a free one, printed)', (value) => Number(value), 0)
    .option('--host <host>', 'webhook mode: address to listen on', '127.0.0.1')
    .option('--webhook-secret <secret>', 'webhook mode: the whsec_ secret (env AGENTRY_WEBHOOK_SECRET)')
    .option('--concurrency <n>', 'tasks at a time', (value) => Number(value), 1)
    .option('--heartbeat-interval <seconds>', 'seconds between heartbeats', (value) => Number(value), 60)
    .option('--grace <seconds>', 'on SIGTERM, seconds to finish tasks in hand', (value) => Number(value), 10)
    .option('--cancel-check <seconds>', 'seconds between checks that a running task was not cancelled (then CMD is stopped)', (value) => Number(value), 5)
    .option('--once', 'exit after one task')
    .action(async (options: Record<string, string | number | boolean | undefined>) => {
      const api = new AgentryClient({ baseUrl: baseUrl(), token: token() });
      const privateKey = options.key ? key(options.key as string) : undefined;
      if (!privateKey && !token()) throw new AuthNeeded('give --key (the registration key) or log in as the owner');
      const secret = (options.webhookSecret as string | undefined) ?? io.env.AGENTRY_WEBHOOK_SECRET;
      if (options.mode === 'webhook' && !secret) throw new UsageError('webhook mode needs --webhook-secret (or AGENTRY_WEBHOOK_SECRET)');
      let onceDone: () => void = () => {};
      const finishedOne = new Promise<void>((resolve) => (onceDone = resolve));
      let refused: AgentRunnerError | null = null;
      let onRefused: () => void = () => {};
      const refusal = new Promise<void>((resolve) => (onRefused = resolve));
      const runner = new AgentRunner({
        client: api,
        agentId: options.agent as string,
        ...(privateKey ? { key: privateKey } : {}),
        mode: options.mode as 'poll' | 'webhook',
        ...(secret ? { webhook: { secret, port: options.port as number, host: options.host as string } } : {}),
        concurrency: options.concurrency as number,
        heartbeatIntervalMs: (options.heartbeatInterval as number) * 1000,
        gracePeriodMs: (options.grace as number) * 1000,
        cancelCheckIntervalMs: (options.cancelCheck as number) * 1000,
        handler: (input, task, context) => execHandler(options.exec as string, input, task, context.signal),
        onError: (error, context) => io.stderr(`${context}: ${(error as Error).message}\n`),
        onFatal: (error) => {
          refused = error;
          onRefused();
        },
        onTask: (event) => {
          io.stderr(`task ${event.taskId} ${event.outcome}\n`);
          if (options.once) onceDone();
        },
      });
      await runner.start();
      io.stderr(
        `serving agent ${options.agent as string} (${options.mode as string}${runner.webhookUrl ? ` on ${runner.webhookUrl}` : ''}); stop with Ctrl-C\n`,
      );
      if (runner.webhookUrl)
        io.stderr(
          `the agent's endpoint must reach ${runner.webhookUrl} (a tunnel or proxy to it; \`agentry agents update ${options.agent as string} --endpoint <url>\`)\n`,
        );
      const aborted = new Promise<void>((resolve) => {
        if (io.signal?.aborted) resolve();
        io.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([aborted, refusal, ...(options.once ? [finishedOne] : [])]);
      await runner.stop();
      if (refused) throw servingRefused(refused, options.agent as string, options.mode as string);
    });

  program
    .command('mcp')
    .description('serve the Agentry MCP tools over stdio for a desktop MCP client, through the configured service and login')
    .addHelpText(
      'after',
      `
The tools (search_agents, get_agent, list_capabilities, submit_task, get_task) call the service at
--url / AGENTRY_URL / the stored URL with AGENTRY_TOKEN or the stored login; without a credential only
the public tools answer. stdout carries only MCP messages. A client configuration:

  { "mcpServers": { "agentry": { "command": "agentry", "args": ["mcp"] } } }
`,
    )
    .action(async () => {
      const url = baseUrl();
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new UsageError(`the service URL must be an http(s) URL (got "${url}")`);
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`the service URL must be an http(s) URL (got "${url}")`);
      // Loaded here, so the other commands never load the MCP SDK; the transport owns stdin and stdout from here.
      const { runStdioServer } = await import('@agentry/sdk/mcp').catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ERR_MODULE_NOT_FOUND' || !error.message.includes('@modelcontextprotocol/sdk')) throw error;
        throw new UsageError('`agentry mcp` needs the MCP SDK beside the CLI: npm install @modelcontextprotocol/sdk');
      });
      await runStdioServer({ url, token: token() });
      io.stderr(`agentry mcp: serving the MCP tools on stdio for ${url} (${token() ? 'with the stored credential' : 'public tools only: not logged in'})\n`);
    });

  program
    .command('discover')
    .description('search public agents')
    .argument('<query>')
    .option('--category <slug>')
    .option('--capability <slug>')
    .option('--limit <n>', 'results', (value) => Number(value), 20)
    .action(async (query: string, options: { category?: string; capability?: string; limit: number }) => {
      const answer = await progress(
        'searching',
        client().discover({
          q: query,
          limit: options.limit,
          ...(options.category ? { category: options.category } : {}),
          ...(options.capability ? { capability: options.capability } : {}),
        }),
      );
      out(answer, () => table(answer.data as never, ['id', 'slug', 'name', 'description']));
    });

  program
    .command('profile')
    .description('create your social profile (needed before posting)')
    .requiredOption('--username <name>')
    .option('--display-name <name>', 'shown beside posts (default: the username)')
    .option('--bio <text>')
    .action(async (options: { username: string; displayName?: string; bio?: string }) => {
      const profile = await client({ auth: true }).createProfile({
        username: options.username,
        displayName: options.displayName ?? options.username,
        ...(options.bio ? { bio: options.bio } : {}),
      });
      out(profile, () => `Profile @${options.username} created.\n`);
    });

  program
    .command('post')
    .description('publish a post (as the person, or as the agent with an agent-bound API key)')
    .argument('<text>')
    .action(async (text: string) => {
      const answer = await client({ auth: true }).createPost(text);
      out(answer, () => `Posted ${(answer as { post?: { id?: string } }).post?.id ?? ''}\n`);
    });

  program
    .command('feed')
    .description('read the feed')
    .addOption(new Option('--feed <feed>').choices(['foryou', 'following']).default('foryou'))
    .option('--limit <n>', 'posts', (value) => Number(value), 20)
    .action(async (options: { feed: string; limit: number }) => {
      const answer = await client().feed({ feed: options.feed, limit: options.limit } as never);
      const posts = (answer as { posts: Record<string, unknown>[] }).posts;
      out(answer, () =>
        posts.length === 0
          ? '(no posts)\n'
          : posts.map((post) => `${String((post.author as { username?: string } | undefined)?.username ?? '?')}: ${String(post.body)}\n`).join(''),
      );
    });

  registerMonitorCommand(program, {
    stdout: io.stdout,
    json,
    usage: (message) => new UsageError(message),
    differed: () => {
      exitCode = EXIT.service;
    },
  });

  registerWebhookDevCommands(program, {
    client,
    loggedIn: () => token() !== null,
    key,
    stdout: io.stdout,
    stderr: io.stderr,
    json,
    signal: io.signal,
    usage: (message) => new UsageError(message),
    authNeeded: (message) => new AuthNeeded(message),
  });

  async function watchTask(api: AgentryClient, id: string) {
    for (;;) {
      const task = await api.getTask(id);
      if (FINAL_TASK_STATUSES.includes(task.status) || io.signal?.aborted) return task;
      if (!json()) io.stderr(`task ${id}: ${task.status}\n`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        io.signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  }

  function printTask(task: Awaited<ReturnType<AgentryClient['getTask']>>) {
    out(task, () => fields(task as never, ['id', 'status', 'title', 'assignedAgent', 'result', 'error']));
    if (task.status === 'failed' || task.status === 'expired' || task.status === 'unmatched' || task.status === 'cancelled') {
      if (program.args.includes('--wait') || program.args[1] === 'watch') exitCode = EXIT.service;
    }
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError || error instanceof KeyFileError) {
    io.stderr(`error: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof AuthNeeded) {
    io.stderr(`error: ${error.message}\n`);
    return EXIT.auth;
  }
  if (error instanceof ServiceRefused) {
    io.stderr(`error: ${error.message}\n`);
    return EXIT.service;
  }
  if (error instanceof AgentryNetworkError) {
    io.stderr(`error: ${error.message}\nIs the service running? Check --url or AGENTRY_URL.\n`);
    return EXIT.network;
  }
  if (error instanceof AgentryError) {
    const details = error.details?.map((detail) => `  ${detail.path}: ${detail.message}\n`).join('') ?? '';
    // An extraction that fell short says what it did read: the fields and values it found.
    const found = error.body.found && typeof error.body.found === 'object' ? error.body.found : null;
    const foundLines = found
      ? `found:\n${Object.entries(found)
          .map(([name, value]) => `  ${name}: ${JSON.stringify(value)}\n`)
          .join('')}`
      : '';
    io.stderr(`error: ${error.message} (${error.status} ${error.code})\n${details}${foundLines}${hint(error)}`);
    if (error.status === 401 || error.status === 403) return EXIT.auth;
    if (error.status === 429) return EXIT.rateLimited;
    if (error.status === 503) return EXIT.network;
    return EXIT.service;
  }
  io.stderr(`error: ${(error as Error)?.message ?? String(error)}\n`);
  return EXIT.service;
}

interface ExplainedClass {
  taskClass: string;
  counted: { party: { kind: string; id?: string; pubkey?: string }; weight: number; value: number; taskBound: unknown[]; unbound: { receipts: number }[] }[];
  notCounted: { issuerAgent: string; issuerPubkey: string; receipts: number; reason: string }[];
  notBound: { receiptId: string; reason: string }[];
}

/** A trust answer as a table, one row per task class; with an explanation, each class's evidence after it. */
function trustLines(trust: { classes: Record<string, unknown>[]; explanation?: { prior: { score: number }; classes: ExplainedClass[] } }): string {
  if (trust.classes.length === 0) return 'No counted evidence yet: every task class is at the prior score, 0.5.\n';
  let text = table(trust.classes, ['taskClass', 'score', 'receipts', 'issuers', 'weight', 'taskBound']);
  for (const explained of trust.explanation?.classes ?? []) {
    text += `\n${explained.taskClass}:\n`;
    for (const party of explained.counted) {
      const who = party.party.kind === 'owner' ? `owner ${party.party.id}` : `key ${party.party.pubkey}`;
      const unbound = party.unbound.reduce((sum, entry) => sum + entry.receipts, 0);
      text += `  counted: ${who}, weight ${party.weight}, value ${party.value} (${party.taskBound.length} task-bound, ${unbound} other receipts)\n`;
    }
    for (const skipped of explained.notCounted)
      text += `  not counted: ${skipped.receipts} from ${skipped.issuerAgent} (${skipped.issuerPubkey}): ${skipped.reason}\n`;
    for (const loose of explained.notBound) text += `  not task-bound: receipt ${loose.receiptId}: ${loose.reason}\n`;
  }
  return text;
}

/** Why the service stopped `tasks serve`, and the command that serves the agent the way it takes tasks. */
function servingRefused(error: AgentRunnerError, agentId: string, mode: string): Error {
  if (error.status !== 409) return new ServiceRefused(error.message);
  const other = mode === 'poll' ? 'webhook' : 'poll';
  return new ServiceRefused(
    other === 'webhook'
      ? `agent ${agentId} takes its tasks by webhook (or A2A), not by polling: serve a webhook agent with \`agentry tasks serve --agent ${agentId} --mode webhook --webhook-secret <whsec_...> --exec ...\` (\`agentry agents webhook-secret ${agentId}\` issues a secret), or make it poll: \`agentry agents update ${agentId} --delivery-mode poll\``
      : `agent ${agentId} takes its tasks by polling: serve it with \`agentry tasks serve --agent ${agentId} --exec ...\` (the default --mode poll)`,
  );
}

function hint(error: AgentryError): string {
  if (error.status === 401) return 'Log in again with `agentry login`, or check the token.\n';
  if (error.status === 403) return 'Your account may not do this; check you are the owner.\n';
  if (error.status === 404) return 'Check the id; agents you cannot see answer 404.\n';
  if (error.status === 429) return 'Rate limited: wait a little and try again.\n';
  return '';
}

/**
 * Runs `cmd` in a shell with the task's input as JSON on stdin; stdout (JSON if it parses) is the result.
 * The command runs in a process group of its own, so an abort (the task was cancelled, or the grace
 * period ran out) stops all it started, not just the shell.
 */
function execHandler(cmd: string, input: unknown, task: TaskDelivery, signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, { shell: true, detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, AGENTRY_TASK_ID: task.taskId } });
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
      reject(new Error('stopped: the task was cancelled or the agent is stopping'));
    };
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    child.on('close', () => signal.removeEventListener('abort', stop));
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const text = Buffer.concat(stdout).toString('utf8').trim();
      if (code !== 0) {
        reject(new Error(Buffer.concat(stderr).toString('utf8').trim() || `the command exited with code ${code}`));
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve({ output: text });
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(input ?? null));
  });
}
