import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isKnownPage, isServicePath, type PageSubjects } from './app-pages.ts';

/** Where `npm run build:web` writes the app. */
export const defaultWebRoot = fileURLToPath(new URL('../../dist/web', import.meta.url));

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
 * never cached (it names the current hashes), for every GET outside the service's own prefixes:
 * with 200 for a page of the app, with 404 for an unknown page, post or user (the app says what is
 * missing). Answers null when there is nothing built, so unknown paths keep their JSON 404.
 */
export async function installWebApp(app: FastifyInstance, root: string | null, subjects: PageSubjects | null = null): Promise<PageFallback | null> {
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
    if ((request.method !== 'GET' && request.method !== 'HEAD') || isServicePath(request.url) || fileLike.test(request.url)) return null;
    const path = request.url.split('?')[0]!;
    return Promise.all([readFile(indexFile), isKnownPage(path, subjects)]).then(([html, known]) =>
      reply
        .status(known ? 200 : 404)
        .header('cache-control', 'no-cache')
        .header('content-security-policy', pageContentSecurityPolicy)
        .type('text/html; charset=utf-8')
        .send(html),
    );
  };
}
