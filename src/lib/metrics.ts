/**
 * The service's Prometheus metrics (served at /metrics, src/http/metrics.ts). Each app has a registry
 * of its own, so tests that build several apps in one process never share counters; the process's
 * own metrics (memory, GC, event-loop lag: prom-client's defaults) live in one registry per process,
 * made at the first scrape, so a node nobody scrapes never pays for their observers.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

export type DeliveryMode = 'webhook' | 'a2a';
/** What one delivery attempt led to: accepted by the agent, tried again later, or moved to the next candidate. */
export type DeliveryOutcome = 'delivered' | 'retry' | 'next_candidate';

/** Figures read when scraped rather than counted as they happen. */
export interface MetricSources {
  databasePool?: () => { total: number; idle: number; waiting: number } | null;
  eventStreamsOpen?: () => number;
  deliveriesInFlight?: () => number;
  deliveryQueue?: () => Promise<{ pending: number; running: number }>;
  discoveryAwaitingMeaning?: () => number;
}

export interface Metrics {
  readonly contentType: string;
  httpRequest(method: string, route: string, statusCode: number, seconds: number): void;
  databaseQuery(seconds: number, failed: boolean): void;
  deliveryAttempt(mode: DeliveryMode, outcome: DeliveryOutcome): void;
  receiptIngested(signatureVerified: boolean): void;
  taskStatusChanged(status: string, count?: number): void;
  /** This node ran a scheduled pass of a background job (src/db/background-passes.ts). */
  backgroundPass(job: string): void;
  /** A long poll starts holding its request; call what it returns when it ends. */
  longPollHeld(): () => void;
  /** Adds figures read at scrape time (the database handle, the events service and the delivery worker come to exist at different moments). */
  readFrom(sources: MetricSources): void;
  /** The exposition text: this app's metrics and the process's. */
  text(): Promise<string>;
}

let processRegistry: Registry | null = null;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Buckets from a cached read (about a millisecond) to a long poll's or a slow endpoint's tens of seconds. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

interface RequestSeries {
  labels: { method: string; route: string; status_code: string };
  count: number;
  sum: number;
  /** Requests per bucket of REQUEST_BUCKETS (not cumulative; those above the last are only in count). */
  inBucket: number[];
}

/**
 * Answered requests by method, route template and status code, and their durations, published as
 * the counter `http_requests_total` and the histogram `http_request_duration_seconds`. Every request
 * adds to plain numbers found through three map lookups; the samples are made at a scrape. (A
 * labelled prom-client counter and histogram validate and hash their labels on every observation,
 * which cost more than the rest of a cached read's own work.) Registered as prom-client metrics that
 * only answer `get()`, so the registry formats them as its own.
 */
function createRequestTally(registry: Registry) {
  const byRoute = new Map<string, Map<string, Map<number, RequestSeries>>>();
  const series: RequestSeries[] = [];

  const publish = (name: string, help: string, type: 'counter' | 'histogram', values: () => object[]) =>
    registry.registerMetric({ name, help, type, get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }) } as unknown as Metric);
  publish('http_requests_total', 'HTTP requests answered, by method, route template and status code', 'counter', () =>
    series.map((s) => ({ labels: s.labels, value: s.count })),
  );
  publish(
    'http_request_duration_seconds',
    'Time from a request arriving to its answer being sent, by method, route template and status code',
    'histogram',
    () =>
      series.flatMap((s) => {
        let cumulative = 0;
        return [
          ...REQUEST_BUCKETS.map((le, i) => ({
            metricName: 'http_request_duration_seconds_bucket',
            labels: { le, ...s.labels },
            value: (cumulative += s.inBucket[i]!),
          })),
          { metricName: 'http_request_duration_seconds_bucket', labels: { le: '+Inf', ...s.labels }, value: s.count },
          { metricName: 'http_request_duration_seconds_sum', labels: s.labels, value: s.sum },
          { metricName: 'http_request_duration_seconds_count', labels: s.labels, value: s.count },
        ];
      }),
  );

  return {
    record(method: string, route: string, statusCode: number, seconds: number): void {
      let byMethod = byRoute.get(route);
      if (byMethod === undefined) byRoute.set(route, (byMethod = new Map<string, Map<number, RequestSeries>>()));
      let byStatus = byMethod.get(method);
      if (byStatus === undefined) byMethod.set(method, (byStatus = new Map<number, RequestSeries>()));
      let counted = byStatus.get(statusCode);
      if (counted === undefined) {
        counted = { labels: { method, route, status_code: String(statusCode) }, count: 0, sum: 0, inBucket: REQUEST_BUCKETS.map(() => 0) };
        byStatus.set(statusCode, counted);
        series.push(counted);
      }
      counted.count++;
      counted.sum += seconds;
      let bucket = 0;
      while (bucket < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[bucket]!) bucket++;
      if (bucket < REQUEST_BUCKETS.length) counted.inBucket[bucket]!++;
    },
  };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const sources: MetricSources = {};

  const requests = createRequestTally(registry);
  const queryDuration = new Histogram({
    name: 'agentry_db_query_duration_seconds',
    help: "Database query latency on the request thread's connection or pool, by outcome",
    labelNames: ['outcome'] as const,
    buckets: QUERY_BUCKETS,
    registers: [registry],
  });
  const deliveryAttempts = new Counter({
    name: 'agentry_delivery_attempts_total',
    help: 'Task deliveries attempted, by mode (webhook, a2a) and what the attempt led to (delivered, retry, next_candidate)',
    labelNames: ['mode', 'outcome'] as const,
    registers: [registry],
  });
  const receipts = new Counter({
    name: 'agentry_receipts_ingested_total',
    help: 'Trust receipts newly stored, by whether their signature verified',
    labelNames: ['verified'] as const,
    registers: [registry],
  });
  const taskStatus = new Counter({
    name: 'agentry_task_status_changes_total',
    help: 'Task status changes made by this node, by the status entered',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const backgroundPasses = new Counter({
    name: 'agentry_background_passes_total',
    help: 'Scheduled passes of background work this node ran, by job; each pass runs on one node of those sharing the database',
    labelNames: ['job'] as const,
    registers: [registry],
  });
  const longPolls = new Gauge({ name: 'agentry_long_polls_held', help: 'Agent task polls holding their request open on this node', registers: [registry] });
  new Gauge({
    name: 'agentry_event_streams_open',
    help: 'GET /v1/events streams open on this node',
    registers: [registry],
    collect() {
      this.set(sources.eventStreamsOpen?.() ?? 0);
    },
  });
  new Gauge({
    name: 'agentry_db_pool_connections',
    help: 'PostgreSQL pool connections by state (in_use, idle, and waiting: requests queued for a connection); absent on SQLite',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = sources.databasePool?.();
      if (!pool) return;
      this.set({ state: 'in_use' }, pool.total - pool.idle);
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'waiting' }, pool.waiting);
    },
  });
  new Gauge({
    name: 'agentry_deliveries_in_flight',
    help: "Deliveries this node's worker is sending now",
    registers: [registry],
    collect() {
      this.set(sources.deliveriesInFlight?.() ?? 0);
    },
  });
  new Gauge({
    name: 'agentry_discovery_agents_awaiting_meaning',
    help: "Agents this node's search ranks by their words only until their sentence vectors are made (after a burst of registrations)",
    registers: [registry],
    collect() {
      this.set(sources.discoveryAwaitingMeaning?.() ?? 0);
    },
  });
  new Gauge({
    name: 'agentry_delivery_queue_depth',
    help: 'Delivery jobs in the outbox shared by all nodes, by state (pending: waiting for a worker or a retry; running: leased)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      if (!sources.deliveryQueue) return;
      const depth = await sources.deliveryQueue().catch(() => null);
      if (!depth) return;
      this.set({ state: 'pending' }, depth.pending);
      this.set({ state: 'running' }, depth.running);
    },
  });

  return {
    contentType: registry.contentType,
    httpRequest: requests.record,
    databaseQuery(seconds, failed) {
      queryDuration.observe({ outcome: failed ? 'error' : 'ok' }, seconds);
    },
    deliveryAttempt(mode, outcome) {
      deliveryAttempts.inc({ mode, outcome });
    },
    receiptIngested(signatureVerified) {
      receipts.inc({ verified: signatureVerified ? 'true' : 'false' });
    },
    taskStatusChanged(status, count = 1) {
      if (count > 0) taskStatus.inc({ status }, count);
    },
    backgroundPass(job) {
      backgroundPasses.inc({ job });
    },
    longPollHeld() {
      longPolls.inc();
      let ended = false;
      return () => {
        if (!ended) longPolls.dec();
        ended = true;
      };
    },
    readFrom(more) {
      Object.assign(sources, more);
    },
    async text() {
      return `${await registry.metrics()}\n${await processMetrics().metrics()}`;
    },
  };
}
