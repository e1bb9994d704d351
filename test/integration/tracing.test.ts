/**
 * OpenTelemetry tracing, on: the app exports spans over OTLP/HTTP (JSON) to a receiver this test
 * runs on loopback; requests, their queries and the deliveries they lead to are spans of one trace,
 * and the agent receives that trace's context in `traceparent`. Off: no tracing at all.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { dialectUnderTest, startTestApp, type TestApp } from '../helpers/app.ts';
import { agentBody, registerAgent } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { socialUser } from '../helpers/social.ts';
import { readyWebhookAgent, submitTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

const fastDelivery = {
  ALLOW_PRIVATE_ENDPOINTS: 'true',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_TIMEOUT_MS: '10000',
  DELIVERY_POLL_INTERVAL_MS: '20',
  PUBLIC_URL: 'https://agentry.example.test',
};

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: number;
  attributes: Record<string, string | number | boolean>;
  service: string;
}

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  taskId?: string;
  trace_id?: string;
  span_id?: string;
}

/** Where an app's log lines go in these tests: kept, parsed, in order. */
function logLines(): { lines: LogLine[]; raw: string[]; stream: { write(line: string): void } } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  return {
    lines,
    raw,
    stream: {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  };
}

/** OTLP/JSON ids are hex; protobuf-style base64 is read too, so a change of encoding fails on the ids, not here. */
const hexId = (id: string | undefined) => (!id ? '' : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex'));

function attributesOf(list: KeyValue[] | undefined): ReceivedSpan['attributes'] {
  const out: ReceivedSpan['attributes'] = {};
  for (const { key, value } of list ?? [])
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''));
  return out;
}

/** A stand-in OpenTelemetry collector: accepts OTLP/HTTP JSON trace exports and keeps their spans. */
async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; contentTypes: Set<string>; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const contentTypes = new Set<string>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      contentTypes.add(String(request.headers['content-type']));
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: KeyValue[] };
          scopeSpans: {
            spans: {
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              name: string;
              kind: number;
              status?: { code?: number };
              attributes?: KeyValue[];
            }[];
          }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans) {
        const service = String(attributesOf(resourceSpans.resource.attributes)['service.name']);
        for (const scope of resourceSpans.scopeSpans)
          for (const span of scope.spans)
            spans.push({
              traceId: hexId(span.traceId),
              spanId: hexId(span.spanId),
              parentSpanId: hexId(span.parentSpanId),
              name: span.name,
              kind: span.kind,
              status: span.status?.code ?? 0,
              attributes: attributesOf(span.attributes),
              service,
            });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('tracing on: spans over OTLP/HTTP', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let agentServer: AgentServer;
  let app: TestApp;
  let requester: { token: string };
  let owner: { token: string };
  const log = logLines();
  before(async () => {
    receiver = await startOtlpReceiver();
    agentServer = await startAgentServer();
    app = await startTestApp(
      {
        ...fastDelivery,
        OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'agentry-under-test',
        LOG_LEVEL: 'info',
      },
      {
        logger: true,
        logStream: log.stream,
        // A shared part of the service (Redis, a relevance signal) logs with the app's logger, not the request's.
        beforeReady: (server) => {
          server.get('/test/shared-part-logs', async () => {
            server.log.warn('a shared part logs while serving a request');
            return { ok: true };
          });
        },
      },
    );
    requester = await app.signup();
    owner = await app.signup();
  });
  after(async () => {
    await app?.close();
    await agentServer?.close();
    await receiver?.close();
  });

  /** Exports what has ended and finds the spans `pick` wants. */
  async function spansWhere(what: string, pick: (span: ReceivedSpan) => boolean, count = 1): Promise<ReceivedSpan[]> {
    return waitFor(
      what,
      async () => {
        await app.tracing!.flush();
        return receiver.spans.filter(pick);
      },
      (found) => found.length >= count,
    );
  }

  it('a request is a server span named by its route, with its request id, and its queries are its children', async () => {
    assert.ok(app.tracing, 'tracing is on with OTEL_EXPORTER_OTLP_ENDPOINT set');
    const registration = await app.request({
      method: 'POST',
      url: '/v1/agents',
      token: owner.token,
      body: agentBody(),
    });
    assert.equal(registration.statusCode, 201, registration.body);
    const requestId = String(registration.headers['x-request-id']);

    const [span] = await spansWhere('the registration span', (s) => s.attributes['agentry.request_id'] === requestId);
    assert.equal(span!.name, 'POST /v1/agents');
    assert.equal(span!.kind, SPAN_KIND_SERVER);
    assert.equal(span!.service, 'agentry-under-test');
    assert.equal(span!.parentSpanId, '', 'a request without traceparent starts a trace');
    assert.deepEqual(
      {
        method: span!.attributes['http.request.method'],
        route: span!.attributes['http.route'],
        path: span!.attributes['url.path'],
        status: span!.attributes['http.response.status_code'],
      },
      { method: 'POST', route: '/v1/agents', path: '/v1/agents', status: 201 },
    );

    const queries = await spansWhere('the registration queries', (s) => s.parentSpanId === span!.spanId && s.kind === SPAN_KIND_CLIENT);
    const system = dialectUnderTest === 'postgres' ? 'postgresql' : 'sqlite';
    assert.ok(
      queries.every((q) => q.traceId === span!.traceId && q.attributes['db.system.name'] === system && typeof q.attributes['db.query.text'] === 'string'),
      `every query span is in the request's trace, on ${system}, with its SQL: ${JSON.stringify(queries)}`,
    );
    const insert = queries.find((q) => q.attributes['db.operation.name'] === 'INSERT' && q.attributes['db.collection.name'] === 'agents');
    assert.ok(insert, `the agent's INSERT is a span: ${queries.map((q) => q.name).join(', ')}`);
    assert.equal(insert.name, 'INSERT agents');
  });

  it("a request's log lines carry its request id and its span's trace_id and span_id", async () => {
    const person = await socialUser(app);
    const me = await app.request({ method: 'GET', url: '/v1/users/me', token: person.token });
    assert.equal(me.statusCode, 200, me.body);
    const requestId = String(me.headers['x-request-id']);
    const [span] = await spansWhere('the request span', (s) => s.attributes['agentry.request_id'] === requestId);
    assert.equal(span!.name, 'GET /v1/users/me');

    const completed = log.lines.find((line) => line.reqId === requestId && line.msg === 'request completed');
    assert.ok(completed, `the request's completion is logged with its request id: ${JSON.stringify(log.lines.slice(-4))}`);
    assert.deepEqual(
      { trace_id: completed.trace_id, span_id: completed.span_id },
      { trace_id: span!.traceId, span_id: span!.spanId },
      'the log line names the span that was exported',
    );
    const raw = log.raw.filter((line) => line.includes(requestId));
    assert.ok(
      raw.every((line) => line.split('"reqId"').length === 2),
      `each line names its request once: ${raw.join('')}`,
    );
    const traced = log.lines.filter((line) => line.reqId === requestId && line.trace_id !== undefined);
    assert.ok(
      traced.every((line) => line.trace_id === span!.traceId),
      `every traced line of the request is in its trace: ${JSON.stringify(traced)}`,
    );
  });

  it("a line the app's own logger writes while serving a request carries the request's id and span", async () => {
    const response = await app.request({ method: 'GET', url: '/test/shared-part-logs' });
    assert.equal(response.statusCode, 200, response.body);
    const requestId = String(response.headers['x-request-id']);
    const [span] = await spansWhere('the request span', (s) => s.attributes['agentry.request_id'] === requestId);
    const line = log.lines.find((l) => l.msg === 'a shared part logs while serving a request');
    assert.deepEqual(
      { reqId: line?.reqId, trace_id: line?.trace_id, span_id: line?.span_id },
      { reqId: requestId, trace_id: span!.traceId, span_id: span!.spanId },
    );
  });

  it('an unknown path is named by its method alone, and a route with a parameter by its template', async () => {
    const missing = await app.request({ method: 'GET', url: '/v1/no-such-thing/123' });
    assert.equal(missing.statusCode, 404);
    const agent = await registerAgent(app, owner.token);
    const read = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` });
    assert.equal(read.statusCode, 200);
    const [unknown] = await spansWhere('the 404 span', (s) => s.attributes['agentry.request_id'] === missing.headers['x-request-id']);
    assert.equal(unknown!.name, 'GET');
    assert.equal(unknown!.attributes['http.route'], undefined, 'no route template for an unknown path');
    assert.equal(unknown!.attributes['http.response.status_code'], 404);
    const [byId] = await spansWhere('the read span', (s) => s.attributes['agentry.request_id'] === read.headers['x-request-id']);
    assert.equal(byId!.name, 'GET /v1/agents/:id');
    assert.equal(byId!.attributes['url.path'], `/v1/agents/${agent.id}`);
  });

  it("a task's delivery continues the submitting request's trace, and the agent receives its traceparent", async () => {
    const agent = await readyWebhookAgent(app, owner.token, `${agentServer.url}/hook?token=not-for-traces`, { capabilities: ['text-summarization'] });
    // The caller is traced too: its trace continues here.
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const task = await submitTask(
      app,
      requester.token,
      { description: 'Summarise the quarterly report' },
      { traceparent: `00-${callerTrace}-${callerSpan}-01` },
    );
    assert.equal(task.assignedAgent?.id, agent.id);
    const [webhook] = await agentServer.waitFor(1);

    const [submission] = await spansWhere('the submission span', (s) => s.name === 'POST /v1/tasks' && s.traceId === callerTrace);
    assert.equal(submission!.parentSpanId, callerSpan, "the submission's parent is the caller's span");
    const [delivery] = await spansWhere('the delivery span', (s) => s.name === 'deliver webhook' && s.attributes['agentry.task.id'] === task.id);
    assert.equal(delivery!.kind, SPAN_KIND_CLIENT);
    assert.equal(delivery!.traceId, callerTrace, "the delivery is in the submitting request's trace");
    assert.deepEqual(
      {
        agent: delivery!.attributes['agentry.agent.id'],
        mode: delivery!.attributes['agentry.delivery.mode'],
        attempt: delivery!.attributes['agentry.delivery.attempt'],
        status: delivery!.attributes['http.response.status_code'],
        url: delivery!.attributes['url.full'],
      },
      { agent: agent.id, mode: 'webhook', attempt: 1, status: 200, url: `${agentServer.url}/hook` },
    );
    assert.notEqual(delivery!.status, STATUS_ERROR);

    assert.equal(webhook!.headers.traceparent, `00-${callerTrace}-${delivery!.spanId}-01`, 'the webhook carries the delivery span as its parent');
  });

  it('a failed delivery is an error span', async () => {
    const refusing = await startAgentServer(() => ({ status: 503, body: 'busy' }));
    try {
      const agent = await readyWebhookAgent(app, owner.token, refusing.url, { capabilities: ['text-summarization'] });
      const task = await submitTask(app, requester.token, { description: 'Summarise the annual report', agentId: agent.id });
      await refusing.waitFor(1);
      const [failed] = await spansWhere('the failed delivery span', (s) => s.name === 'deliver webhook' && s.attributes['agentry.task.id'] === task.id);
      assert.equal(failed!.status, STATUS_ERROR);
      assert.equal(failed!.attributes['error.type'], 'status');
      assert.equal(failed!.attributes['http.response.status_code'], 503);

      // The delivery is a span of its own, the send its child; its log lines name the task and that span.
      const [delivery] = await spansWhere('the delivery', (s) => s.spanId === failed!.parentSpanId);
      assert.equal(delivery!.name, 'delivery');
      assert.equal(delivery!.attributes['agentry.task.id'], task.id);
      const retrying = await waitFor(
        'the failed delivery logged',
        async () => log.lines.find((line) => line.taskId === task.id && line.msg === 'delivery failed; retrying'),
        (line) => line !== undefined,
      );
      assert.deepEqual(
        { trace_id: retrying!.trace_id, span_id: retrying!.span_id, reqId: retrying!.reqId },
        { trace_id: failed!.traceId, span_id: delivery!.spanId, reqId: undefined },
      );
    } finally {
      await refusing.close();
    }
  });

  it('spans went out as OTLP/HTTP JSON', () => {
    assert.deepEqual([...receiver.contentTypes], ['application/json']);
  });
});

describe('tracing off', () => {
  it('without an OTLP endpoint there is no tracing and deliveries carry no traceparent', async () => {
    const agentServer = await startAgentServer();
    const app = await startTestApp(fastDelivery);
    try {
      assert.equal(app.tracing, null);
      const requester = await app.signup();
      const owner = await app.signup();
      await readyWebhookAgent(app, owner.token, agentServer.url, { capabilities: ['text-summarization'] });
      await submitTask(
        app,
        requester.token,
        { description: 'Summarise the quarterly report' },
        { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      );
      const [webhook] = await agentServer.waitFor(1);
      assert.equal(webhook!.headers.traceparent, undefined, 'no trace context is sent when tracing is off');
    } finally {
      await app.close();
      await agentServer.close();
    }
  });

  it("a request's log lines carry its request id, and no trace fields", async () => {
    const log = logLines();
    const app = await startTestApp({ LOG_LEVEL: 'info' }, { logger: true, logStream: log.stream });
    try {
      const person = await socialUser(app);
      const me = await app.request({ method: 'GET', url: '/v1/users/me', token: person.token });
      assert.equal(me.statusCode, 200, me.body);
      const requestId = String(me.headers['x-request-id']);
      const lines = log.lines.filter((line) => line.reqId === requestId);
      assert.deepEqual(
        lines.map((line) => line.msg),
        ['incoming request', 'request completed'],
      );
      assert.ok(
        log.lines.every((line) => line.trace_id === undefined && line.span_id === undefined),
        'no trace fields when tracing is off',
      );

      // A proxy's request id is the one logged.
      const given = await app.request({ method: 'GET', url: '/v1/users/me', token: person.token, headers: { 'x-request-id': 'proxy-req-0042' } });
      assert.equal(given.headers['x-request-id'], 'proxy-req-0042');
      assert.deepEqual(
        log.lines.filter((line) => line.reqId === 'proxy-req-0042').map((line) => line.msg),
        ['incoming request', 'request completed'],
      );
    } finally {
      await app.close();
    }
  });

  it('an app without an OTLP endpoint never loads the OpenTelemetry SDK', async () => {
    // A process of its own: this file's other suite loaded the SDK into this one.
    const script = `
      import { createRequire } from 'node:module';
      import { buildApp } from './src/app.ts';
      import { loadConfig } from './src/config.ts';
      const app = await buildApp(loadConfig({ DATABASE_URL: ':memory:', LOG_LEVEL: 'silent' }), { logger: false, webRoot: null });
      await app.server.inject({ method: 'GET', url: '/health' });
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => /@opentelemetry[\\/](sdk|exporter|resources|core)/.test(path));
      await app.close();
      console.log(JSON.stringify(loaded));
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(status, 0, out);
    assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1)!), [], 'no SDK module was loaded');
  });
});
