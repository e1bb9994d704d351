import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses, literals, standardErrorResponses } from '../../http/schemas.ts';
import type { ArdService } from './service.ts';

const CatalogEntry = Type.Object({
  identifier: Type.String(),
  displayName: Type.String(),
  type: Type.String(),
  url: Type.Optional(Type.String()),
  data: Type.Optional(Type.Object({}, { additionalProperties: true })),
  description: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String())),
  capabilities: Type.Optional(Type.Array(Type.String())),
  representativeQueries: Type.Optional(Type.Array(Type.String())),
  version: Type.Optional(Type.String()),
  updatedAt: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
});
const Catalog = Type.Object({
  specVersion: Type.Literal('1.0'),
  host: Type.Object({ displayName: Type.String(), documentationUrl: Type.String() }),
  entries: Type.Array(CatalogEntry),
});
const SearchResult = Type.Composite([
  CatalogEntry,
  Type.Object({
    score: Type.Integer({ minimum: 0, maximum: 100, description: 'relevance to the query text, 0-100; never trust' }),
    source: Type.String(),
    trust: Type.Number({ description: "this registry's trust in the agent for the query, 0..1 (docs/trust.md)" }),
    availability: Type.String(),
  }),
]);
const Filter = Type.Record(
  Type.String({ minLength: 1, maxLength: 100 }),
  Type.Union([Type.String({ maxLength: 200 }), Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50 })]),
  {
    description:
      'field path (dotted) -> a value or values, any of which must match; fields: ARD entry fields, and category, capability, protocol, availability',
  },
);
const QueryModel = Type.Object({ text: Type.Optional(Type.String({ maxLength: 500 })), filter: Type.Optional(Filter) }, { additionalProperties: false });
const SearchRequest = Type.Object(
  {
    query: Type.Object({ text: Type.String({ minLength: 1, maxLength: 500 }), filter: Type.Optional(Filter) }, { additionalProperties: false }),
    federation: Type.Optional(literals(['auto', 'referrals', 'none'], { description: 'answered as none: this registry refers to no other' })),
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    pageToken: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);
const ExploreRequest = Type.Object(
  {
    query: Type.Optional(QueryModel),
    resultType: Type.Object(
      {
        facets: Type.Array(
          Type.Object(
            {
              field: Type.String({ minLength: 1, maxLength: 100 }),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
              minCount: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
            },
            { additionalProperties: false },
          ),
          { minItems: 1, maxItems: 20 },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
const FacetResult = Type.Object({
  buckets: Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() })),
  otherCount: Type.Optional(Type.Integer()),
});
const ardErrors = standardErrorResponses({ errorCode: Type.String({ description: "ARD's error classification (INVALID_ARGUMENT, NOT_FOUND, ...)" }) });

export function registerArdRoutes(root: FastifyInstance, ard: ArdService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['ard'];

  app.get('/.well-known/ai-catalog.json', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: "This registry's public agents as an AI Catalog (ARD); larger registries nest the next page",
      response: { 200: Catalog, ...errorResponses },
    },
    handler: async () => ard.catalogPage(1),
  });

  app.get('/ard/catalog/:page', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'A later page of the AI Catalog, nested in the one before',
      params: Type.Object({ page: Type.Integer({ minimum: 2, maximum: 100_000 }) }),
      response: { 200: Catalog, ...ardErrors },
    },
    handler: async (request) => ard.catalogPage(request.params.page),
  });

  app.post('/ard/search', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'ARD search: public agents ranked for a request in natural language',
      body: SearchRequest,
      response: { 200: Type.Object({ results: Type.Array(SearchResult), pageToken: Type.Optional(Type.String()) }), ...ardErrors },
    },
    handler: async (request) => ard.search(request.body),
  });

  app.post('/ard/explore', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'ARD explore: counts of values of any field over the public agents (or those matching a query)',
      body: ExploreRequest,
      response: { 200: Type.Object({ resultType: Type.Literal('facets'), facets: Type.Record(Type.String(), FacetResult) }), ...ardErrors },
    },
    handler: async (request) => ard.explore(request.body),
  });

  app.get('/ard/agents', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: "ARD listing: public agents in a fixed order, filtered by field = 'value' terms joined by AND",
      querystring: Type.Object({
        filter: Type.Optional(Type.String({ maxLength: 1000 })),
        orderBy: Type.Optional(Type.String({ maxLength: 100 })),
        pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
        pageToken: Type.Optional(Type.String({ maxLength: 40 })),
      }),
      response: { 200: Type.Object({ items: Type.Array(CatalogEntry), total: Type.Integer(), pageToken: Type.Optional(Type.String()) }), ...ardErrors },
    },
    handler: async (request) => ard.list(request.query),
  });
}
