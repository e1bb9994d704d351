import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { literals, standardErrorResponses } from '../../http/schemas.ts';
import { IDENTITY_META, OFFICIAL_META, type McpRegistryService } from './service.ts';

const ServerDetail = Type.Object({
  $schema: Type.String(),
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
  version: Type.String(),
  websiteUrl: Type.String(),
  remotes: Type.Array(Type.Object({ type: Type.Literal('streamable-http'), url: Type.String() })),
});
const ServerResponse = Type.Object({
  server: ServerDetail,
  _meta: Type.Object({
    [OFFICIAL_META]: Type.Object({
      status: literals(['active', 'deprecated', 'deleted']),
      publishedAt: Type.String(),
      updatedAt: Type.String(),
      isLatest: Type.Boolean(),
    }),
    [IDENTITY_META]: Type.Optional(
      Type.Object(
        {
          identityLevel: literals(['provisional', 'none', 'key', 'domain']),
          verifiedDomain: Type.Union([Type.String(), Type.Null()]),
          cardSignature: Type.Union([Type.Object({ kid: Type.String(), jku: Type.String() }), Type.Null()]),
        },
        {
          description: 'how far the agent behind the server proved who it is: its identity level, verified domain and signed card (absent once it is deleted)',
        },
      ),
    ),
  }),
});
const ServerList = Type.Object({
  servers: Type.Array(ServerResponse),
  metadata: Type.Object({ nextCursor: Type.Optional(Type.String()), count: Type.Integer() }),
});
const errors = standardErrorResponses({ error: Type.String({ description: 'the MCP Registry API error field' }) });
const IncludeDeleted = Type.Optional(Type.Boolean({ description: 'include deleted servers (default false)' }));
const ServerName = Type.String({ minLength: 3, maxLength: 200, description: 'URL-encoded server name, e.g. com.example%2Fmy-agent' });

export function registerMcpRegistryRoutes(root: FastifyInstance, mcpRegistry: McpRegistryService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['mcp-registry'];

  app.get('/v0.1/servers', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'MCP servers: the public agents that speak MCP at a remote endpoint (MCP Registry API 2025-12-01)',
      querystring: Type.Object({
        cursor: Type.Optional(Type.String({ maxLength: 400 })),
        limit: Type.Integer({ minimum: 1, maximum: 100, default: 30 }),
        search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'substring of the server name' })),
        updated_since: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; deleted servers are always included' })),
        version: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "'latest' or an exact version" })),
        include_deleted: IncludeDeleted,
      }),
      response: { 200: ServerList, ...errors },
    },
    handler: async (request) => mcpRegistry.list(request.query),
  });

  app.get('/v0.1/servers/:serverName/versions', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'Every version of one MCP server, newest first',
      params: Type.Object({ serverName: ServerName }),
      querystring: Type.Object({ include_deleted: IncludeDeleted }),
      response: { 200: ServerList, ...errors },
    },
    handler: async (request) => mcpRegistry.versions(request.params.serverName, request.query.include_deleted === true),
  });

  app.get('/v0.1/servers/:serverName/versions/:version', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: "One version of an MCP server ('latest' for the latest)",
      params: Type.Object({ serverName: ServerName, version: Type.String({ minLength: 1, maxLength: 255 }) }),
      querystring: Type.Object({ include_deleted: IncludeDeleted }),
      response: { 200: ServerResponse, ...errors },
    },
    handler: async (request) => mcpRegistry.version(request.params.serverName, request.params.version, request.query.include_deleted === true),
  });
}
