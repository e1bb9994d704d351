import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { dataOf, errorResponses, listOf } from '../../http/schemas.ts';
import { DiscoveredAgent, DiscoveredAgentDetail, DiscoverQuery, SearchSettings, SlugParams, UpdateSearchSettings } from './schemas.ts';
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

  const Counts = Type.Array(Type.Object({ slug: Type.String(), agents: Type.Integer({ minimum: 1 }) }));
  app.get('/v1/capabilities/agent-counts', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary:
        'How many agents you may see offer each catalogue capability, and per category how many are filed under it or offer one of its capabilities (none: left out)',
      response: { 200: dataOf(Type.Object({ capabilities: Counts, categories: Counts })), ...errorResponses },
    },
    handler: async (request) => ({ data: await discovery.agentCounts(request.principal) }),
  });

  // A person's own setting: whether their completed, well-rated tasks improve search (docs/discovery.md).
  app.get('/v1/settings/search', {
    config: { auth: 'either' },
    schema: {
      tags,
      summary: 'Whether your completed tasks improve search',
      security: [{ bearer: [] }],
      response: { 200: dataOf(SearchSettings), ...errorResponses },
    },
    handler: async (request) => ({ data: await discovery.searchSettings(principalOf(request)) }),
  });

  app.patch('/v1/settings/search', {
    config: { auth: 'either' },
    schema: {
      tags,
      summary: 'Turn "let my completed tasks improve search" on or off (off removes what your tasks gave)',
      security: [{ bearer: [] }],
      body: UpdateSearchSettings,
      response: { 200: dataOf(SearchSettings), ...errorResponses },
    },
    handler: async (request) => ({ data: await discovery.updateSearchSettings(principalOf(request), request.body) }),
  });
}
