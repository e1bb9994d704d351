import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm run build:web` writes the app. */
export const defaultWebRoot = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** These keep the API's JSON 404 for unknown paths; every other GET is a page of the app. */
const notPages = /^\/(v1|docs|openapi\.json|health|ready|media|assets)(\/|$|\?)/;
/** A last segment with a dot asks for a file (favicon.ico, robots.txt), not for a page. */
const fileLike = /\/[^/?]*\.[^/?]*(\?|$)/;

/**
 * Scripts and styles come only from this origin; the app sets no inline script. Images may also come
 * over HTTPS from elsewhere: a task's result may name images, which its page shows (without a referrer).
 */
export const pageContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export type PageFallback = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply> | null;

/**
 * Serves the built web app: content-hashed files under /assets/ cached for a year, and index.html,
 * never cached (it names the current hashes), for every path of the app. Answers null when there
 * is nothing built, so unknown paths keep their JSON 404.
 */
export async function installWebApp(app: FastifyInstance, root: string | null): Promise<PageFallback | null> {
  if (root === null) return null;
  const indexFile = join(root, 'index.html');
  if (!existsSync(indexFile)) {
    app.log.warn({ root }, 'the web app is not built (npm run build:web); only the API is served');
    return null;
  }
  await app.register(fastifyStatic, { root: join(root, 'assets'), serve: false, index: false });
  app.get('/assets/*', {
    schema: { hide: true },
    // A page load asks for several files; they are cheap and must not eat the caller's API budget.
    config: { rateLimit: false },
    handler: (request, reply) => reply.sendFile((request.params as { '*': string })['*'], { immutable: true, maxAge: 365 * 24 * 3600 * 1000 }),
  });

  return (request, reply) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || notPages.test(request.url) || fileLike.test(request.url)) return null;
    return readFile(indexFile).then((html) =>
      reply
        .status(200)
        .header('cache-control', 'no-cache')
        .header('content-security-policy', pageContentSecurityPolicy)
        .type('text/html; charset=utf-8')
        .send(html),
    );
  };
}
