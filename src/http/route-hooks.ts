import type { onRequestHookHandler, RouteOptions } from 'fastify';

/**
 * Puts `hook` first among a route's onRequest hooks, from an onRoute hook. Features that attach
 * per route (the rate limiter, authentication) run in the reverse order of their installation.
 */
export function prependOnRequest(route: RouteOptions, hook: onRequestHookHandler): void {
  const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  route.onRequest = [hook, ...existing];
}
