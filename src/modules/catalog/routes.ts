import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../http/schemas.ts';
import { capabilities, categoryCounts } from './capabilities.ts';

const Catalogue = Type.Object({
  data: Type.Array(
    Type.Object({ slug: Type.String(), name: Type.String(), category: Type.String(), description: Type.String(), aliases: Type.Array(Type.String()) }),
  ),
  categories: Type.Array(Type.Object({ slug: Type.String(), name: Type.String(), count: Type.Integer() })),
});

export function registerCatalogRoutes(app: FastifyInstance): void {
  // The catalogue is data shipped with the release: built once, served from memory.
  const body = { data: capabilities, categories: categoryCounts() };
  app.get('/v1/capabilities', {
    config: { auth: 'none' },
    schema: { tags: ['catalog'], summary: 'The standardized capability catalogue', response: { 200: Catalogue, ...errorResponses } },
    handler: async (_request, reply) => reply.header('cache-control', 'public, max-age=3600').send(body),
  });
}
