/**
 * An A2A agent on loopback built from the official @a2a-js/sdk server (DefaultRequestHandler and
 * its JSON-RPC transport handler, served by node:http): what a real A2A agent runs, so the service's
 * sender is checked against the SDK rather than against our own reading of the protocol.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2A_VERSION_HEADER, Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  defaultServerCallContextBuilder,
  validateVersion,
  type AgentExecutor,
} from '@a2a-js/sdk/server';

export type A2aBehaviour =
  /** Answers at once with a Message echoing the task's text and input. */
  | 'reply'
  /** Returns a working Task and completes it with an artifact once `release()` is called. */
  | 'long'
  /** Returns a working Task and fails it once `release()` is called. */
  | 'fail';

export interface A2aCall {
  method: string;
  headers: IncomingHttpHeaders;
  params: Record<string, unknown>;
}

export interface A2aAgent {
  url: string;
  calls: A2aCall[];
  /** Lets the long-running task finish. */
  release(): void;
  close(): Promise<void>;
}

const text = (value: string): Part => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });

export async function startA2aAgent(options: { behaviour: A2aBehaviour; bearer?: string }): Promise<A2aAgent> {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const calls: A2aCall[] = [];

  const executor: AgentExecutor = {
    async execute(request, bus) {
      const { taskId, contextId } = request;
      const said = request.userMessage.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
      const input = request.userMessage.parts.find((part) => part.content?.$case === 'data')?.content?.value as unknown;
      if (options.behaviour === 'reply') {
        const reply: Message = {
          messageId: randomUUID(),
          contextId,
          taskId: '',
          role: Role.ROLE_AGENT,
          parts: [text(`echo: ${said}`), data({ input: input ?? null })],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        };
        bus.publish(AgentEvent.message(reply));
        bus.finished();
        return;
      }
      const status = (state: TaskState, message?: string) => ({
        state,
        message: message
          ? {
              messageId: randomUUID(),
              contextId,
              taskId,
              role: Role.ROLE_AGENT,
              parts: [text(message)],
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            }
          : undefined,
        timestamp: new Date().toISOString(),
      });
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(TaskState.TASK_STATE_WORKING),
          artifacts: [],
          history: [request.userMessage],
          metadata: undefined,
        }),
      );
      await released;
      if (options.behaviour === 'long') {
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: 'summary',
              name: 'summary',
              description: '',
              parts: [text('Revenue up 4%'), data({ growth: 0.04 })],
              metadata: undefined,
              extensions: [],
            },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
      } else {
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_FAILED, 'the disk is full'), metadata: undefined }));
      }
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
      bus.finished();
    },
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method: string; params: Record<string, unknown> };
        calls.push({ method: body.method, headers: req.headers, params: body.params });
        if (options.bearer && req.headers.authorization !== `Bearer ${options.bearer}`) {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
          return;
        }
        const requestedVersion =
          typeof req.headers[A2A_VERSION_HEADER.toLowerCase()] === 'string' ? (req.headers[A2A_VERSION_HEADER.toLowerCase()] as string) : undefined;
        const context = defaultServerCallContextBuilder({ extensions: undefined, user: new UnauthenticatedUser(), headers: req.headers, requestedVersion });
        validateVersion(context.requestedVersion, card, 'JSONRPC');
        const answer = await transport.handle(body, context);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      })().catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a`;
  const card: AgentCard = {
    name: 'Loopback agent',
    description: 'An A2A agent for tests',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
  const transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor));

  return {
    url,
    calls,
    release: () => release(),
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
