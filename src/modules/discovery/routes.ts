import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { dataOf, errorResponses, listOf } from '../../http/schemas.ts';
import { DiscoveredAgent, DiscoveredAgentDetail, DiscoverQuery, SlugParams } from './schemas.ts';
import type { DiscoveryService } from './service.ts';

export function registerDiscoveryRoutes(root: FastifyInstance, discovery: DiscoveryService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['discovery'];

  // Optional auth: anyone may search; a credential adds the private and org agents its holder may see.
  app.get('/v1/discover', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'Find agents by what they do, ranked by relevance, trust and availability',
      querystring: DiscoverQuery,
      response: { 200: listOf(DiscoveredAgent), ...errorResponses },
    },
    handler: async (request) => discovery.search(request.principal, request.query),
  });

  app.get('/v1/discover/:slug', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'One agent by slug (404 if you may not see it)',
      params: SlugParams,
      response: { 200: dataOf(DiscoveredAgentDetail), ...errorResponses },
    },
    handler: async (request) => ({ data: await discovery.get(request.principal, request.params.slug) }),
  });
}
