/**
 * Tracing on: the OpenTelemetry SDK, loaded only when an OTLP endpoint is configured (src/lib/tracing.ts).
 *
 * Spans are made here by hand at the service's three doors rather than by the auto-instrumentation
 * packages, which patch modules as they load (and so must run before anything imports them, with an
 * ESM loader hook for this ES module program) and know nothing of SQLite:
 * - one SERVER span per request, its parent taken from an incoming `traceparent`, named by the route
 *   template, carrying the request id; the rest of the request runs inside it;
 * - one CLIENT span per database query made inside a request or a delivery (both databases);
 * - one CLIENT span per outbound request, whose context goes along in `traceparent`, so an agent's
 *   own spans join the trace of the request that led to its delivery.
 */
import { performance } from 'node:perf_hooks';
import { context, createContextKey, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK, resources, tracing as sdkTracing } from '@opentelemetry/sdk-node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OutboundRequest } from './outbound-http.ts';
import type { Tracing, TracingConfig } from './tracing.ts';

/** The id of the request being served, kept beside its span for the log lines of loggers that are not the request's. */
const REQUEST_ID = createContextKey('agentry.request_id');

/** Longer statements are cut: the text identifies the query, the rest only weighs on the exporter. */
const MAX_QUERY_TEXT = 2_000;

const OPERATION = /^\s*(?:with\b[\s\S]*?\)\s*)?(select|insert|update|delete|begin|commit|rollback|savepoint|release|pragma|create|alter|drop|listen|notify)\b/i;
const COLLECTION = /\b(?:from|into|update|join)\s+(?:"?\w+"?\.)?"?([A-Za-z_]\w*)"?/i;

/** `SELECT users`, `INSERT tasks`: what the query does and to which table, as the span's name. */
function querySummary(sql: string): { operation: string | null; collection: string | null; name: string } {
  const operation = OPERATION.exec(sql)?.[1]?.toUpperCase() ?? null;
  const collection = operation && ['SELECT', 'INSERT', 'UPDATE', 'DELETE'].includes(operation) ? (COLLECTION.exec(sql)?.[1] ?? null) : null;
  return { operation, collection, name: [operation ?? 'QUERY', collection].filter(Boolean).join(' ') };
}

/** The URL without its query string, which may carry a token. */
function traceableUrl(raw: string): URL | null {
  try {
    const url = new URL(raw);
    url.search = '';
    url.hash = '';
    return url;
  } catch {
    return null;
  }
}

export function createOtelTracing(config: TracingConfig, serviceVersion: string): Tracing {
  const exporterOptions = { url: config.endpoint, headers: config.headers };
  const exporter = config.protocol === 'http/json' ? new JsonTraceExporter(exporterOptions) : new ProtobufTraceExporter(exporterOptions);
  const processor = new sdkTracing.BatchSpanProcessor(exporter);
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    resource: resources.defaultResource().merge(resources.resourceFromAttributes({ 'service.version': serviceVersion })),
    spanProcessors: [processor],
    // Traces only: metrics are served at /metrics, logs go to stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const tracer = trace.getTracer('agentry', serviceVersion);

  function endRequestSpan(span: Span, reply: FastifyReply): void {
    const status = reply.raw.statusCode;
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!reply.raw.writableFinished) span.setAttribute('agentry.client_gone', true);
    span.end();
  }

  return {
    instrumentServer(app: FastifyInstance) {
      const spans = new WeakMap<FastifyRequest, Span>();
      app.addHook('onRequest', (request, reply, done) => {
        const route = request.routeOptions.url;
        const parent = propagation.extract(ROOT_CONTEXT, request.headers);
        const span = tracer.startSpan(
          route ? `${request.method} ${route}` : request.method,
          {
            kind: SpanKind.SERVER,
            attributes: {
              'http.request.method': request.method,
              'url.path': request.url.split('?', 1)[0]!,
              'url.scheme': request.protocol,
              'client.address': request.ip,
              'agentry.request_id': request.id,
              ...(route ? { 'http.route': route } : {}),
              ...(typeof request.headers['user-agent'] === 'string' ? { 'user_agent.original': request.headers['user-agent'] } : {}),
            },
          },
          parent,
        );
        spans.set(request, span);
        const active = trace.setSpan(parent, span).setValue(REQUEST_ID, request.id);
        // The body arrives in events of the request stream: bound, its listeners run in the span too.
        context.bind(active, request.raw);
        context.bind(active, reply.raw);
        // A client that leaves skips onResponse; the response's close still ends the span.
        reply.raw.once('close', () => {
          if (spans.delete(request)) endRequestSpan(span, reply);
        });
        context.with(active, done);
      });
      app.addHook('onResponse', (request, reply, done) => {
        const span = spans.get(request);
        if (span && spans.delete(request)) endRequestSpan(span, reply);
        done();
      });
    },

    logFields(_mergeObject, _level, logger): Record<string, string> {
      const active = context.active();
      const span = trace.getSpan(active);
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      const requestId = active.getValue(REQUEST_ID);
      // The request's own logger has its reqId among its bindings already; the app's logger does not.
      if (typeof requestId === 'string' && !('reqId' in logger.bindings())) return { reqId: requestId, trace_id: traceId, span_id: spanId };
      return { trace_id: traceId, span_id: spanId };
    },

    async inSpan(name, attributes, work) {
      // Not the request's work any more (a delivery handed off by the request that created the task), though still its trace.
      const parent = context.active().deleteValue(REQUEST_ID);
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
      try {
        return await context.with(trace.setSpan(parent, span), work);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },

    query(sql, seconds, failed, dialect) {
      const parent = context.active();
      // Background passes poll all the time; only queries made for a request or a delivery are traced.
      if (!trace.getSpan(parent)) return;
      const { operation, collection, name } = querySummary(sql);
      const span = tracer.startSpan(
        name,
        {
          kind: SpanKind.CLIENT,
          startTime: performance.now() - seconds * 1000,
          attributes: {
            'db.system.name': dialect === 'postgres' ? 'postgresql' : 'sqlite',
            'db.query.text': sql.length > MAX_QUERY_TEXT ? sql.slice(0, MAX_QUERY_TEXT) : sql,
            ...(operation ? { 'db.operation.name': operation } : {}),
            ...(collection ? { 'db.collection.name': collection } : {}),
          },
        },
        parent,
      );
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },

    async outbound(request: OutboundRequest, send) {
      const method = request.method ?? 'POST';
      const url = traceableUrl(request.url);
      const span = tracer.startSpan(request.trace?.name ?? method, {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': method,
          ...(url ? { 'url.full': url.href, 'server.address': url.hostname, 'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80) } : {}),
          ...request.trace?.attributes,
        },
      });
      const active = trace.setSpan(context.active(), span);
      const headers: Record<string, string> = { ...request.headers };
      propagation.inject(active, headers);
      try {
        const result = await context.with(active, () => send({ ...request, headers }));
        const { response } = result;
        if (response) span.setAttribute('http.response.status_code', response.status);
        if (!result.ok) {
          span.setAttribute('error.type', result.failure.kind);
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.failure.kind });
        }
        return result;
      } finally {
        span.end();
      }
    },

    flush: () => processor.forceFlush(),

    async close() {
      await sdk.shutdown().catch(() => {});
      // The globals go with it: an app started later in this process starts tracing afresh.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
