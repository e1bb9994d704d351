import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RouteRateLimit } from '../../http/rate-limit.ts';
import type { AgentryApi } from '@agentry/sdk/mcp';

/**
 * The MCP SDK and the tools are loaded on the first /mcp request: they are about a tenth of the
 * service's start-up, and many nodes never serve MCP.
 */
let mcpLibraries: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('@agentry/sdk/mcp')]> | null = null;
const loadMcpLibraries = () => (mcpLibraries ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('@agentry/sdk/mcp')]));

/**
 * The tools reach the service through its own /v1 routes with the caller's credential and address,
 * so authorization and rate limits are exactly the API's.
 */
function injectedApi(app: FastifyInstance, request: FastifyRequest): AgentryApi {
  const authorization = request.principal ? request.headers.authorization : undefined;
  return {
    authenticated: request.principal !== null,
    async call(method, path, body) {
      const response = await app.inject({
        method,
        url: path,
        remoteAddress: request.ip,
        headers: { ...(authorization ? { authorization } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      let parsed: unknown = null;
      try {
        parsed = response.body ? JSON.parse(response.body) : null;
      } catch {
        parsed = { code: 'BAD_GATEWAY', message: 'The API answered with something other than JSON' };
      }
      return { status: response.statusCode, body: parsed };
    },
  };
}

export function registerMcpRoutes(app: FastifyInstance, options: { rateLimit: RouteRateLimit }): void {
  // Stateless streamable HTTP: every POST is one self-contained exchange; there is no session to
  // resume, so GET (a server-to-client stream) and DELETE (end a session) have nothing to do.
  app.post('/mcp', {
    // Optional: the public tools work without a credential; an invalid one is still a 401.
    config: { auth: 'optional', rateLimit: options.rateLimit },
    schema: { hide: true },
    handler: async (request, reply) => {
      const [{ StreamableHTTPServerTransport }, { createAgentryMcpServer }] = await loadMcpLibraries();
      const server = createAgentryMcpServer(injectedApi(app, request));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config: { auth: 'none' },
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .status(405)
          .header('allow', 'POST')
          .send({ jsonrpc: '2.0', error: { code: -32000, message: 'This MCP server is stateless: send each request as a POST' }, id: null }),
    });
  }
}
