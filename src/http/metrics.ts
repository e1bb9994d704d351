/**
 * GET /metrics, on the service's own port, in Prometheus text format. With METRICS_TOKEN set only a
 * scraper sending that bearer token reads it; unset, only a client whose address (as resolved
 * through TRUST_PROXY) is loopback, so a scraper on the same host works without a setting while the
 * open internet does not. A proxy on the same host makes every client look local unless TRUST_PROXY
 * says to believe it: the operator's guide says to set the token then.
 */
import { timingSafeEqual, hash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { AppError, unauthorized } from '../lib/errors.ts';
import type { Metrics } from '../lib/metrics.ts';

/** Requests that matched no route (unknown paths, the web app's pages) share one label: raw paths would be unbounded. */
const NO_ROUTE = '(no route)';

/** Counts every answered request by its route template; installed before any route is registered. */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, request.routeOptions.url ?? NO_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

export function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const match = /^Bearer ([\x21-\x7e]{1,4096})$/i.exec(request.headers.authorization ?? '');
  // Compared as digests: equal lengths for timingSafeEqual, and no timing clue about the token's length.
  return match !== null && timingSafeEqual(hash('sha256', match[1]!, 'buffer'), expected);
}

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  const expected = token === null ? null : hash('sha256', token, 'buffer');
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'none', rateLimit: false } }, async (request, reply) => {
    if (expected !== null) {
      if (!bearerMatches(request, expected)) throw unauthorized('Send Authorization: Bearer <METRICS_TOKEN>');
    } else if (!isLoopback(request.ip)) {
      throw new AppError('FORBIDDEN', 'Metrics are served only to this host while METRICS_TOKEN is not set; set it to scrape from elsewhere');
    }
    return reply
      .header('cache-control', 'no-store')
      .type(metrics.contentType)
      .send(await metrics.text());
  });
}
