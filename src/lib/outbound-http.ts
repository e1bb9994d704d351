import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, errors as undiciErrors } from 'undici';
import type { OutboundSpan, Tracing } from './tracing.ts';

/**
 * The one way the service makes HTTP requests to addresses its users choose (agent webhooks, the
 * configured extraction model). Such a URL must not become a way into the service's own network, so every
 * address is checked at the moment a socket is about to dial it: literal IPs in the connector, names
 * inside the DNS lookup the socket itself uses. The socket connects to exactly the addresses that
 * were checked, so a DNS answer that changes between a check and a connect (rebinding) cannot slip
 * through. See docs/outbound-http.md.
 */

export interface OutboundRequest {
  url: string;
  method?: 'POST' | 'GET';
  headers?: Record<string, string>;
  body?: string;
  /** A 2xx whose body exceeds the cap fails with kind 'too_large' instead of arriving truncated. */
  requireFullBody?: boolean;
  /** The caller giving up: aborting it ends the attempt at once (kind 'aborted'), as the client's own timeout does. */
  signal?: AbortSignal;
  /** With tracing on: the name and attributes of this request's span (a delivery's task and agent). */
  trace?: OutboundSpan;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  /** At most maxResponseBytes of the body (UTF-8 decoded); the rest was never read. */
  body: string;
  truncated: boolean;
}

export type OutboundFailureKind = 'blocked' | 'dns' | 'connect' | 'timeout' | 'redirect' | 'status' | 'too_large' | 'invalid_url' | 'aborted' | 'network';

export interface OutboundFailure {
  kind: OutboundFailureKind;
  message: string;
}

export type OutboundResult = { ok: true; response: OutboundResponse } | { ok: false; failure: OutboundFailure; response?: OutboundResponse };

export interface OutboundClient {
  /** Never rejects: every outcome is a result. */
  send(request: OutboundRequest): Promise<OutboundResult>;
  /** Ends every connection, cutting requests still running (at shutdown, once their grace is spent). */
  close(): Promise<void>;
}

/** Resolves a host name to every address it has (IPv4 and IPv6 text forms). */
export type HostLookup = (hostname: string) => Promise<string[]>;

export interface OutboundClientOptions {
  /** ALLOW_PRIVATE_ENDPOINTS: local development and tests only. */
  allowPrivate: boolean;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxResponseBytes?: number;
  lookup?: HostLookup;
  /** With tracing on, every request gets a client span and carries its `traceparent`. */
  tracing?: Tracing | null;
}

const OUTBOUND_DEFAULTS = {
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 15_000,
  maxResponseBytes: 64 * 1024,
} as const;

class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/*
 * Cloud metadata services. Their ranges are refused anyway; naming them keeps them refused even
 * with allowPrivate, which has no reason to reach them (a developer's laptop on a cloud VM).
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

// The only IPv6 block IANA has allocated for global unicast; everything outside it is special or unassigned.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  // net.isIP, not ipaddr.isValid: the latter also takes shorthand like "127.1", which no socket is handed.
  if (isIP(address) === 0) return null;
  // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it reaches.
  return ipaddr.process(address);
}

/**
 * True only for public unicast addresses. ipaddr.js names every special-purpose range (loopback,
 * private, link-local, unique-local, carrier-grade NAT, multicast, reserved, documentation,
 * 6to4, Teredo, NAT64, ...) and anything in one of them is refused: the tunnelling and translation
 * prefixes embed an IPv4 address that could be private, and a webhook has no business there.
 */
export function isPublicAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (parsed === null || parsed.range() !== 'unicast') return false;
  if (parsed.kind() === 'ipv6' && !parsed.match(IPV6_GLOBAL_UNICAST)) return false;
  return !METADATA_ADDRESSES.has(parsed.toString());
}

/** Why an address may not be dialed, or null when it may. */
function refusal(address: string, allowPrivate: boolean): string | null {
  const parsed = parseAddress(address);
  if (parsed !== null && METADATA_ADDRESSES.has(parsed.toString())) return 'is a cloud metadata address';
  if (!allowPrivate && !isPublicAddress(address)) return 'is not a public address';
  return null;
}

const LOCALHOST = /^(localhost|.+\.localhost)\.?$/i;

/**
 * Why a URL will be refused when called, as far as can be told without resolving its name: an
 * address written in it (or `localhost`, which always resolves to loopback) that is not public, or
 * a cloud metadata address. Null when nothing tells now; a name is checked when it is called.
 */
export function knownRefusal(raw: string, allowPrivate: boolean): string | null {
  const url = parseTarget(raw);
  if (!(url instanceof URL)) return url.message;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (LOCALHOST.test(host)) return allowPrivate ? null : `${host} is a loopback name, which is not a public address`;
  if (isIP(host) === 0) return null;
  const reason = refusal(host, allowPrivate);
  return reason ? `${host} ${reason}` : null;
}

const defaultLookup: HostLookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true });
  return answers.map((answer) => answer.address);
};

async function checkedAddresses(resolve: HostLookup, hostname: string, allowPrivate: boolean): Promise<LookupAddress[]> {
  let addresses: string[];
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new OutboundError('dns', `could not resolve ${hostname}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  if (addresses.length === 0) throw new OutboundError('dns', `${hostname} has no addresses`);
  for (const address of addresses) {
    if (isIP(address) === 0) throw new OutboundError('dns', `${hostname} resolved to a malformed address`);
    const reason = refusal(address, allowPrivate);
    if (reason) throw new OutboundError('blocked', `${hostname} resolves to ${address}, which ${reason}`);
  }
  return addresses.map((address) => ({ address, family: isIP(address) }));
}

/**
 * The lookup handed to net.connect: it resolves every address, refuses the name if ANY answer is
 * not allowed (a mixed answer is an attack or a misconfiguration, and happy eyeballs could dial
 * any of them), and hands the socket only the addresses it checked.
 */
function guardedLookup(resolve: HostLookup, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(resolve, hostname, allowPrivate).then(
      (entries) => {
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: OutboundError) => callback(error, ''),
    );
  };
}

/**
 * Wraps undici's connector: literal IP hosts never reach a DNS lookup (net.connect dials them
 * directly), so they are checked here; names are checked by the guarded lookup. Anything that goes
 * wrong before the connection is up is classified here, by phase, rather than by error code later.
 */
function guardedConnector(options: Required<Omit<OutboundClientOptions, 'lookup' | 'tracing'>> & { lookup: HostLookup }): buildConnector.connector {
  const connect = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup(options.lookup, options.allowPrivate),
  });
  return (connectOptions, callback) => {
    if (isIP(connectOptions.hostname) !== 0) {
      const reason = refusal(connectOptions.hostname, options.allowPrivate);
      if (reason) {
        process.nextTick(callback, new OutboundError('blocked', `${connectOptions.hostname} ${reason}`), null);
        return;
      }
    }
    connect(connectOptions, (error, socket) => {
      if (error === null) callback(null, socket);
      else if (error instanceof OutboundError) callback(error, null);
      else if (error instanceof undiciErrors.ConnectTimeoutError)
        callback(new OutboundError('timeout', `no connection within ${options.connectTimeoutMs} ms`), null);
      else callback(new OutboundError('connect', `could not connect: ${error.message}`), null);
    });
  };
}

function parseTarget(raw: string): URL | OutboundFailure {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'invalid_url', message: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'invalid_url', message: 'only http and https URLs are allowed' };
  if (url.username !== '' || url.password !== '') return { kind: 'invalid_url', message: 'URLs with credentials are not allowed' };
  return url;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

function classify(error: unknown, timedOut: boolean, totalTimeoutMs: number, cancelled: boolean): OutboundFailure {
  if (timedOut) return { kind: 'timeout', message: `no complete response within ${totalTimeoutMs} ms` };
  if (cancelled) return { kind: 'aborted', message: 'the caller cancelled the request' };
  if (error instanceof OutboundError) return { kind: error.kind, message: error.message };
  return { kind: 'network', message: error instanceof Error ? error.message : String(error) };
}

/**
 * What a failure may tell the people on either side of it (a task's requester, an agent's owner).
 * `failure.message` can name what a host resolved to or the address a refused connection was
 * dialing, which maps the service's own network; it belongs in the server log only. `target`
 * names what was called, e.g. "the agent's endpoint".
 */
export function publicFailureReason(failure: OutboundFailure, target: string, response?: OutboundResponse): string {
  switch (failure.kind) {
    case 'invalid_url':
      return `${target} is not a usable URL (${failure.message})`;
    // One text for both, so no one can learn from it whether an internal host name exists.
    case 'blocked':
    case 'dns':
      return `${target} could not be reached at a public address`;
    case 'connect':
      return `could not connect to ${target}`;
    case 'timeout':
      return `${target} did not answer in time`;
    case 'aborted':
      return `the request to ${target} was cancelled`;
    case 'network':
      return `the connection to ${target} broke`;
    case 'redirect':
      return `${target} answered with a redirect${response ? ` (${response.status})` : ''}, which is not followed`;
    case 'status':
      return `${target} answered HTTP ${response?.status ?? 'with an error status'}`;
    case 'too_large':
      return `${target}'s answer was too large`;
  }
}

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const settings = {
    allowPrivate: options.allowPrivate,
    connectTimeoutMs: options.connectTimeoutMs ?? OUTBOUND_DEFAULTS.connectTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs ?? OUTBOUND_DEFAULTS.totalTimeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? OUTBOUND_DEFAULTS.maxResponseBytes,
    lookup: options.lookup ?? defaultLookup,
  };
  // A private agent: never the global dispatcher, so no proxy settings or interceptors apply.
  const agent = new Agent({ connect: guardedConnector(settings) });

  async function send(request: OutboundRequest): Promise<OutboundResult> {
    const url = parseTarget(request.url);
    if (!(url instanceof URL)) return { ok: false, failure: url };
    if (request.signal?.aborted) return { ok: false, failure: classify(null, false, settings.totalTimeoutMs, true) };

    // One deadline for the whole attempt (connect, headers, body); undici's own timers restart per phase.
    // The caller's signal, when given, can only end the attempt sooner.
    let timedOut = false;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, settings.totalTimeoutMs);
    const signal = request.signal ? AbortSignal.any([controller.signal, request.signal]) : controller.signal;
    let response: OutboundResponse;
    try {
      const answer = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method ?? 'POST',
        headers: request.headers,
        body: request.body,
        signal,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        const room = settings.maxResponseBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          truncated = true;
          // Leaving the loop destroys the body, which closes the connection: the rest is never read.
          break;
        }
        chunks.push(chunk);
        size += chunk.length;
      }
      response = {
        status: answer.statusCode,
        headers: flattenHeaders(answer.headers),
        body: Buffer.concat(chunks).toString('utf8'),
        truncated,
      };
    } catch (error) {
      return { ok: false, failure: classify(error, timedOut, settings.totalTimeoutMs, request.signal?.aborted === true) };
    } finally {
      clearTimeout(timer);
    }

    const { status } = response;
    if (status >= 300 && status < 400) {
      // The target writes this header, and the message may be stored and shown: keep it short.
      const location = response.headers.location?.slice(0, 200);
      return {
        ok: false,
        failure: { kind: 'redirect', message: `answered ${status}${location ? ` (to ${location})` : ''}; redirects are not followed` },
        response,
      };
    }
    if (status < 200 || status >= 300) return { ok: false, failure: { kind: 'status', message: `answered ${status}` }, response };
    if (response.truncated && request.requireFullBody)
      return { ok: false, failure: { kind: 'too_large', message: `response body exceeds ${settings.maxResponseBytes} bytes` }, response };
    return { ok: true, response };
  }

  const { tracing } = options;
  return {
    send: tracing ? (request) => tracing.outbound(request, send) : send,
    // Not agent.close(): it waits for requests still running, and an endpoint that never answers
    // would hold the process up to the request timeout after shutdown's grace ran out.
    close: () => agent.destroy(),
  };
}
