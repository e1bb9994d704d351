import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

const Status = Type.Object({ status: Type.String() });

/**
 * /health says the process answers; /ready says it can reach its database and should get traffic,
 * which a node shutting down should not.
 */
export function registerHealthRoutes(app: FastifyInstance, db: Db, shuttingDown: () => boolean): void {
  app.get('/health', { config: { auth: 'none', rateLimit: false }, schema: { tags: ['ops'], response: { 200: Status } } }, async () => ({ status: 'ok' }));
  app.get(
    '/ready',
    { config: { auth: 'none', rateLimit: false }, schema: { tags: ['ops'], response: { 200: Status, 503: Status } } },
    async (_request, reply) => {
      if (shuttingDown()) return reply.status(503).send({ status: 'shutting down' });
      try {
        await sql`select 1`.execute(db);
        return { status: 'ready' };
      } catch {
        return reply.status(503).send({ status: 'database unreachable' });
      }
    },
  );
}
