/**
 * `agentry init`: the files of a new agent project, ready to install and run. Kept apart from the
 * command wiring so the templates read as the files they become.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { generateKey, publicKeyString, saveKey } from '@agentry/sdk';

export type InitMode = 'poll' | 'webhook' | 'a2a';

export interface InitOptions {
  dir: string;
  mode: InitMode;
  force: boolean;
  /** How package.json names the SDK: a tarball path (`file:...`) until the kit is on the npm registry. */
  sdkSpec: string;
}

const KEY_FILE = 'agent.key';
/** What a task gives the generated agent: agent.ts checks it, and the README's register command registers it. */
const INPUT_SCHEMA = { text: { type: 'string', required: true, description: 'the text to work on' } };
/** The key is the agent's identity and .env holds its credentials: neither belongs in version control. */
const GITIGNORE = `node_modules/\n.env\n${KEY_FILE}\n*.key\n*.pem\n`;
/** The A2A SDK the generated A2A agent is written against (its 1.x server API). */
const A2A_SDK_VERSION = '^1.3.0';

function packageJson(name: string, sdkSpec: string, mode: InitMode): string {
  const manifest = {
    name:
      name
        .toLowerCase()
        .replace(/[^a-z0-9-]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'my-agent',
    version: '0.1.0',
    private: true,
    type: 'module',
    // node itself, not the tsx command (which runs the agent in a child process): a SIGTERM to npm start reaches the agent, which finishes its tasks in hand.
    scripts: { start: 'node --env-file=.env --import tsx agent.ts' },
    dependencies: { '@agentry/sdk': sdkSpec, ...(mode === 'a2a' ? { '@a2a-js/sdk': A2A_SDK_VERSION } : {}) },
    devDependencies: { tsx: '^4.23.15', typescript: '~5.9.0', '@types/node': '^20.19.0' },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * An A2A agent: the official @a2a-js/sdk server answers the service's SendMessage calls with a
 * Message (the task's result), serves its agent card, and signed heartbeats keep it available.
 */
function a2aAgentSource(name: string): string {
  return `import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2A_VERSION_HEADER, Role, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  defaultServerCallContextBuilder,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import { AgentryClient, AgentryError, agentSignatureHeader, loadKey } from '@agentry/sdk';

const agentId = process.env.AGENT_ID ?? '';
const client = new AgentryClient({ baseUrl: process.env.AGENTRY_URL ?? 'http://127.0.0.1:8080', token: process.env.AGENTRY_TOKEN || null });
// The registration key signs heartbeats; the first signed heartbeat proves the key to the service.
const key = loadKey(process.env.AGENT_KEY_FILE ?? '${KEY_FILE}');

const text = (value: string): Part => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });

// A task arrives as a message: the request in words (a text part) and its input as JSON (a data part).
async function work(said: string, input: { text?: string } | undefined): Promise<Part[]> {
  // Your agent's work goes here; what it returns is the task's result, what it throws fails the task.
  const value = input?.text ?? said;
  return [data({ text: value.toUpperCase() })];
}

const executor: AgentExecutor = {
  async execute(request, bus) {
    const said = request.userMessage.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
    const input = request.userMessage.parts.find((part) => part.content?.$case === 'data')?.content?.value as { text?: string } | undefined;
    let parts: Part[];
    try {
      parts = await work(said, input);
    } catch (error) {
      parts = [text(\`failed: \${error instanceof Error ? error.message : String(error)}\`)];
    }
    const reply: Message = {
      messageId: randomUUID(),
      contextId: request.contextId,
      taskId: '',
      role: Role.ROLE_AGENT,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    bus.publish(AgentEvent.message(reply));
    bus.finished();
  },
  async cancelTask(_taskId, bus) {
    bus.finished();
  },
};

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';
const server = createServer((req, res) => {
  // An empty PUBLIC_URL (as a copied .env may have it) is no address: the card then gives the one it listens on.
  const publicUrl = process.env.PUBLIC_URL || \`http://\${host}:\${(server.address() as AddressInfo).port}/\`;
  if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cardFor(publicUrl)));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    void (async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const version = req.headers[A2A_VERSION_HEADER.toLowerCase()];
      const context = defaultServerCallContextBuilder({
        extensions: undefined,
        user: new UnauthenticatedUser(),
        headers: req.headers,
        requestedVersion: typeof version === 'string' ? version : undefined,
      });
      const answer = await new JsonRpcTransportHandler(new DefaultRequestHandler(cardFor(publicUrl), tasks, executor)).handle(body, context);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    })().catch((error: unknown) => {
      console.error(\`request: \${error instanceof Error ? error.message : String(error)}\`);
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'bad request' }));
    });
  });
});
const tasks = new InMemoryTaskStore();

function cardFor(url: string): AgentCard {
  return {
    name: process.env.AGENT_NAME ?? ${JSON.stringify(name)},
    description: 'Upper-cases the text it is given',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '0.1.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json'],
    // Skill ids and tags the catalogue knows become capabilities when the card is imported; examples are requests in users' words.
    skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text', tags: ['text'], examples: ['shout hello', 'make this loud'], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  } as unknown as AgentCard;
}

await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
const url = \`http://\${host}:\${(server.address() as AddressInfo).port}/\`;
console.log(\`A2A endpoint on \${url} (card at \${url}.well-known/agent-card.json)\`);

if (agentId === '') {
  console.log('No AGENT_ID yet: register the agent with this endpoint (see README.md), put its id in .env, and start again.');
} else {
  // Heartbeats keep the agent available; a refusal (wrong id, missing credential) will not fix itself.
  const beat = async () => {
    try {
      await client.heartbeat(agentId, { status: 'available', load: 0 }, agentSignatureHeader(key, agentId));
    } catch (error) {
      if (error instanceof AgentryError && [401, 403, 404].includes(error.status)) {
        console.error(\`the service refused the heartbeat: \${error.message}\`);
        process.exit(1);
      }
      console.error(\`heartbeat: \${error instanceof Error ? error.message : String(error)}\`);
    }
  };
  await beat();
  setInterval(() => void beat(), 60_000).unref();
  console.log(\`agent \${agentId} takes A2A tasks on \${url}; Ctrl-C stops it\`);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
`;
}

function agentSource(mode: InitMode, name: string): string {
  if (mode === 'a2a') return a2aAgentSource(name);
  const webhook =
    mode === 'webhook'
      ? `  mode: 'webhook',
  // The service signs each delivery with this secret (shown once at registration, or \`agentry agents webhook-secret\`).
  webhook: { secret: required('AGENTRY_WEBHOOK_SECRET'), port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' },
`
      : '';
  const where =
    mode === 'webhook'
      ? '`agent ${agentId} takes webhooks on ${runner.webhookUrl}; Ctrl-C stops it`'
      : '`agent ${agentId} is polling for tasks; Ctrl-C stops it`';
  return `import { AgentRunner, AgentryClient, inputSchema, loadKey } from '@agentry/sdk';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(\`Set \${name} in .env (see .env.example and README.md)\`);
    process.exit(2);
  }
  return value;
}

const agentId = required('AGENT_ID');
const client = new AgentryClient({ baseUrl: process.env.AGENTRY_URL ?? 'http://127.0.0.1:8080', token: process.env.AGENTRY_TOKEN || null });

// What a task gives this agent; register the same schema so requesters and the task form know it.
const schema = inputSchema({ text: { type: 'string', required: true, description: 'the text to work on' } });

const runner = new AgentRunner({
  client,
  agentId,
  // The registration key signs heartbeats and polls; the first heartbeat proves the key to the service.
  key: loadKey(process.env.AGENT_KEY_FILE ?? '${KEY_FILE}'),
${webhook}  inputSchema: schema,
  handleSignals: true, // SIGTERM/SIGINT: finish the tasks in hand, then stop
  handler: async (input) => {
    // Your agent's work goes here; what it returns is the task's result, what it throws fails the task.
    return { text: input.text.toUpperCase() };
  },
  onError: (error, context) => console.error(\`\${context}: \${error instanceof Error ? error.message : String(error)}\`),
  onFatal: (error) => {
    console.error(error.message);
    process.exit(1);
  },
  onTask: ({ taskId, outcome }) => console.log(\`task \${taskId} \${outcome}\`),
});

try {
  await runner.start();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
console.log(${where});
`;
}

function envExample(mode: InitMode): string {
  return `# Copy to .env and fill in. npm start reads .env.
AGENTRY_URL=http://127.0.0.1:8080
# The agent's id, printed by \`agentry register\`.
AGENT_ID=
# The owner's API key (\`agentry keys create --name my-agent\`); leave empty for a provisional agent, which signs with its key alone.
AGENTRY_TOKEN=
AGENT_KEY_FILE=${KEY_FILE}
${mode === 'webhook' ? '# The whsec_ secret printed once at registration.\nAGENTRY_WEBHOOK_SECRET=\n# Where the agent listens; the registered endpoint must reach it.\nPORT=3000\n' : ''}${mode === 'a2a' ? "# Where the A2A endpoint listens; the registered endpoint must reach it.\nPORT=3000\n# The endpoint's public address, as the agent card gives it and the registered endpoint names (empty: the address it listens on).\nPUBLIC_URL=http://127.0.0.1:3000/\n" : ''}`;
}

function readme(name: string, mode: InitMode, pubkey: string): string {
  // An owned registration files the agent under one or more catalogue categories (`GET /v1/capabilities` lists them).
  const register =
    mode === 'webhook'
      ? `agentry register --name "${name}" --description "What it does" --categories writing --delivery-mode webhook --endpoint https://your-host.example.com/ --input-schema '${JSON.stringify(INPUT_SCHEMA)}' --key ${KEY_FILE}`
      : mode === 'a2a'
        ? `agentry register --name "${name}" --description "What it does" --categories writing --delivery-mode a2a --endpoint https://your-host.example.com/ --input-schema '${JSON.stringify(INPUT_SCHEMA)}' --key ${KEY_FILE}`
        : `agentry register --provisional --name "${name}" --description "What it does" --delivery-mode poll --input-schema '${JSON.stringify(INPUT_SCHEMA)}' --key ${KEY_FILE}`;
  const how =
    mode === 'webhook'
      ? 'tasks arrive as signed webhooks'
      : mode === 'a2a'
        ? 'tasks arrive as A2A SendMessage calls, answered by the official `@a2a-js/sdk` server'
        : 'it long-polls for tasks, so it needs no public address';
  return `# ${name}

An Agentry agent (${how}),
made by \`agentry init\`. ${mode === 'a2a' ? '`agent.ts` serves the A2A endpoint and its agent card (`/.well-known/agent-card.json`) and sends signed heartbeats; its `work` function is where the work goes. Run it once without `AGENT_ID` to see its address.' : '`agent.ts` runs it with `AgentRunner`; its handler is where the work goes.'}

Its key is \`${KEY_FILE}\` (mode 0600), public half \`${pubkey}\`: the agent's identity. Keep it, and out of version
control; losing it loses the agent's identity and the trust it earned.

1. Install: \`npm install\` (the SDK comes from the tarball package.json names; until \`@agentry/sdk\` is on the npm
   registry, make it in a checkout of Agentry with \`npm run pack:kit\`).
2. Register it (with the \`agentry\` CLI; the command prints the agent id${mode === 'webhook' ? ' and the webhook secret, shown once' : ''}):

   \`\`\`sh
   ${register}
   \`\`\`

3. \`cp .env.example .env\` and fill in \`AGENT_ID\`${mode === 'webhook' ? ', `AGENTRY_TOKEN` and `AGENTRY_WEBHOOK_SECRET`' : mode === 'a2a' ? ' (and `PORT`, `PUBLIC_URL` as the endpoint needs)' : ' (and `AGENTRY_TOKEN` once it is claimed, if you like)'}.
4. \`npm start\`. It says what to fix when the service refuses it (a wrong id, a missing credential).
`;
}

/** Writes the project; refuses to overwrite anything (an overwritten key loses the agent's identity) unless `force`. */
export function initProject(options: InitOptions): { written: string[]; pubkey: string } {
  const dir = resolve(options.dir);
  const name = basename(dir);
  const files = ['package.json', KEY_FILE, 'agent.ts', '.env.example', '.gitignore', 'README.md'];
  const existing = files.filter((file) => existsSync(join(dir, file)));
  if (existing.length > 0 && !options.force) {
    throw new Error(
      `${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''} in ${dir}; give --force to overwrite (an overwritten ${KEY_FILE} loses the agent's identity)`,
    );
  }
  mkdirSync(dir, { recursive: true });
  const key = generateKey();
  saveKey(join(dir, KEY_FILE), key, { overwrite: options.force });
  const pubkey = publicKeyString(key);
  writeFileSync(join(dir, 'package.json'), packageJson(name, options.sdkSpec, options.mode));
  writeFileSync(join(dir, 'agent.ts'), agentSource(options.mode, name));
  writeFileSync(join(dir, '.env.example'), envExample(options.mode));
  writeFileSync(join(dir, '.gitignore'), GITIGNORE);
  writeFileSync(join(dir, 'README.md'), readme(name, options.mode, pubkey));
  return { written: files, pubkey };
}
