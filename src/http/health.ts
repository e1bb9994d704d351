import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

const Status = Type.Object({ status: Type.String() });

/**
 * /health says the process answers (at once, from the first moment it listens); /ready says it can
 * reach its database and should get traffic: not while it shuts down, nor while it starts, before
 * search is ready (agents and their vectors loaded, the sentence encoder warmed).
 */
export function registerHealthRoutes(app: FastifyInstance, db: Db, shuttingDown: () => boolean, searchReady: () => boolean = () => true): void {
  app.get('/health', { config: { auth: 'none', rateLimit: false }, schema: { tags: ['ops'], response: { 200: Status } } }, async () => ({ status: 'ok' }));
  app.get(
    '/ready',
    { config: { auth: 'none', rateLimit: false }, schema: { tags: ['ops'], response: { 200: Status, 503: Status } } },
    async (_request, reply) => {
      if (shuttingDown()) return reply.status(503).send({ status: 'shutting down' });
      if (!searchReady()) return reply.status(503).send({ status: 'starting: search is not ready yet' });
      try {
        await sql`select 1`.execute(db);
        return { status: 'ready' };
      } catch {
        return reply.status(503).send({ status: 'database unreachable' });
      }
    },
  );
}
