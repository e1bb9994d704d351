/**
 * Optional OpenTelemetry tracing. Off (no OTLP endpoint configured) nothing here loads the
 * OpenTelemetry SDK, not even its API: the app holds `null` and its hot paths check for it once.
 * On, src/lib/tracing-otel.ts is imported and starts the SDK with spans for HTTP requests, database
 * queries and outbound requests (deliveries to agents, the extraction model), their trace context
 * sent along in `traceparent`.
 */
import type { FastifyInstance } from 'fastify';
import type { OutboundRequest, OutboundResult } from './outbound-http.ts';

export interface TracingConfig {
  /** Where spans go: the OTLP/HTTP traces URL (…/v1/traces). */
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_HEADERS: sent with every export (an API key at a hosted collector). */
  headers: Record<string, string>;
  serviceName: string;
}

export type SpanAttributes = Record<string, string | number | boolean>;

/** What an outbound request's span is about; outbound requests without one are traced as plain HTTP calls. */
export interface OutboundSpan {
  name: string;
  attributes?: SpanAttributes;
}

/** The trace fields of a log line; pino calls it (as its `mixin`) with the logger that writes the line. */
export type LogFields = (mergeObject: object, level: number, logger: { bindings(): Record<string, unknown> }) => Record<string, string>;

export interface Tracing {
  /** Installs the request span hooks; called first, so everything a request does runs inside its span. */
  instrumentServer(app: FastifyInstance): void;
  /**
   * What a log line written now adds: `trace_id` and `span_id` of the active span, and `reqId` of the
   * request being served when the line's logger is not the request's own (which has it already).
   */
  logFields: LogFields;
  /** Runs background work (a delivery) inside a span of its own, under whatever span is current. */
  inSpan<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T>;
  /** A database query that has just finished, as a span ending now under whatever span is current. */
  query(sql: string, seconds: number, failed: boolean, dialect: 'sqlite' | 'postgres'): void;
  /** Runs an outbound request inside a client span, its trace context added to the request's headers. */
  outbound(request: OutboundRequest, send: (request: OutboundRequest) => Promise<OutboundResult>): Promise<OutboundResult>;
  /** Exports every span ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops. */
  close(): Promise<void>;
}

export async function startTracing(config: TracingConfig, serviceVersion: string): Promise<Tracing> {
  const { createOtelTracing } = await import('./tracing-otel.ts');
  return createOtelTracing(config, serviceVersion);
}
