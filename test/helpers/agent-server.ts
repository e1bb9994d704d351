/**
 * A real agent on loopback: an HTTP server that records every webhook it receives and answers as
 * the test tells it to (2xx, an error status, a redirect, or never). The registry's health probes
 * (signed GETs that carry no task) are answered the same way but kept apart, in `probes`: a probe
 * that comes between two deliveries must not be taken for one.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  at: number;
}

export type Responder = (webhook: ReceivedWebhook) => { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface AgentServer {
  url: string;
  received: ReceivedWebhook[];
  /** The registry's health probes: `GET` requests from `Agentry-Health`. */
  probes: ReceivedWebhook[];
  respond: Responder;
  /** Resolves when `count` webhooks have arrived in all (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  connections: number;
  close(): Promise<void>;
}

export async function startAgentServer(respond: Responder = () => ({ status: 200, body: '{"ok":true}' })): Promise<AgentServer> {
  const waiters: (() => void)[] = [];
  const agent: AgentServer = {
    url: '',
    received: [],
    probes: [],
    respond,
    connections: 0,
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (agent.received.length >= count) {
            clearTimeout(timer);
            resolve(agent.received.slice(0, count));
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => reject(new Error(`expected ${count} webhooks, got ${agent.received.length}`)), timeoutMs);
        // Each arrival wakes every waiter once: one still short of its count waits for the next.
        const retry = () => {
          if (!check()) waiters.push(retry);
        };
        retry();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // recorded as received; tests look at `body`
      }
      const webhook = { headers: request.headers, body, json, at: Date.now() };
      const probe = request.method === 'GET' && String(request.headers['user-agent']).startsWith('Agentry-Health/');
      if (probe) agent.probes.push(webhook);
      else {
        agent.received.push(webhook);
        for (const wake of waiters.splice(0)) wake();
      }
      const answer = agent.respond(webhook);
      if (answer === 'hang') return;
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body ?? '');
    });
  });
  server.on('connection', () => agent.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  agent.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return agent;
}
