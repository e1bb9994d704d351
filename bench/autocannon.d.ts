// autocannon ships no types; this covers the part of its programmatic API the benches use.
declare module 'autocannon' {
  interface Stats {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }
  interface RequestShape {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    /** Stop after this many requests instead of after `duration`. */
    amount?: number;
    timeout?: number;
    /** Per-request shaping; setupRequest may return a new body for every request. */
    requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string; setupRequest?: (request: RequestShape) => RequestShape }[];
  }
  interface Result {
    requests: Stats;
    latency: Stats;
    throughput: Stats;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  /** Without a callback: an EventEmitter ('reqError', 'response', ...) that is also a promise of the Result. */
  type Instance = import('node:events').EventEmitter & PromiseLike<Result>;
  function autocannon(options: Options): Instance;
  export default autocannon;
}
