import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RouteRateLimit } from '../../http/rate-limit.ts';
import { setSecurityHeaders } from '../../http/response-headers.ts';
import type { AgentryApi } from '@agentry/sdk/mcp';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { jsonBodyParser } from '../../http/json-body.ts';
import { screenToolCalls, type RequestId } from './tool-arguments.ts';

/**
 * The MCP SDK and the tools are loaded on the first /mcp request: they are about a tenth of the
 * service's start-up, and many nodes never serve MCP.
 */
let mcpLibraries: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('@agentry/sdk/mcp')]> | null = null;
const loadMcpLibraries = () => (mcpLibraries ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('@agentry/sdk/mcp')]));

/** An MCP client over HTTP sends the same credentials as the /v1 API. */
const AUTHENTICATE_OVER_HTTP = 'send "Authorization: Bearer <session token or API key>" (the same credentials as the /v1 API)';

/**
 * The tools reach the service through its own /v1 routes with the caller's credential and address,
 * so authorization and rate limits are exactly the API's.
 */
function injectedApi(app: FastifyInstance, request: FastifyRequest): AgentryApi {
  const authorization = request.principal ? request.headers.authorization : undefined;
  return {
    authenticated: request.principal !== null,
    howToAuthenticate: AUTHENTICATE_OVER_HTTP,
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

/** Tool calls of a request refused for their arguments (see tool-arguments.ts), with the tool error each gets. */
const refusedToolCalls = new WeakMap<FastifyRequest, Map<RequestId, string>>();

/** The transport hands each message to the server; a refused tool call is answered instead, as the tool error it is. */
function answerRefusedToolCalls(transport: Transport, refused: Map<RequestId, string>): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const id = 'method' in message && 'id' in message ? message.id : undefined;
    const reason = id === undefined ? undefined : refused.get(id);
    if (id === undefined || reason === undefined) deliver?.(message, extra);
    else void transport.send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: reason }], isError: true } });
  };
}

export function registerMcpRoutes(root: FastifyInstance, options: { rateLimit: RouteRateLimit }): void {
  // Stateless streamable HTTP: every POST is one self-contained exchange; there is no session to
  // resume, so GET (a server-to-client stream) and DELETE (end a session) have nothing to do.
  void root.register(async (app) => {
    // The body is read as everywhere else, except that a tool call whose arguments break the input
    // rules is kept for a tool error instead of making the whole request a 400.
    const parseAsEveryRoute = jsonBodyParser(app);
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const screened = typeof body === 'string' && body !== '' ? screenToolCalls(body) : null;
      if (!screened) {
        parseAsEveryRoute(request, body, done);
        return;
      }
      refusedToolCalls.set(request, screened.refused);
      done(null, screened.body);
    });
    app.post('/mcp', {
      // Optional: the public tools work without a credential; an invalid one is still a 401.
      config: { auth: 'optional', rateLimit: options.rateLimit },
      schema: { hide: true },
      handler: async (request, reply) => {
        const [{ StreamableHTTPServerTransport }, { createAgentryMcpServer }] = await loadMcpLibraries();
        const server = createAgentryMcpServer(injectedApi(root, request));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        reply.hijack();
        // A hijacked reply skips the onSend hook that sets these on every other route.
        setSecurityHeaders(reply.raw, request.id);
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        const refused = refusedToolCalls.get(request);
        if (refused) answerRefusedToolCalls(transport, refused);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      },
    });
  });

  for (const method of ['GET', 'DELETE'] as const) {
    root.route({
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
