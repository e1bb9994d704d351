/**
 * The same MCP tools over stdio, for desktop MCP clients: each tool call becomes an HTTP request to
 * a running Agentry service with the configured credential. This runs on the user's machine, so it
 * calls exactly the service URL the user configured.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createAgentryMcpServer, type AgentryApi } from './tools.ts';

const REQUEST_TIMEOUT_MS = 30_000;
/** `agentry mcp` sends the CLI's stored credential or AGENTRY_TOKEN, never a header the MCP client sets. */
const AUTHENTICATE_OVER_STDIO = 'run `agentry login` (or set AGENTRY_TOKEN to an API key) and restart `agentry mcp`';

export function createHttpApi(options: { url: string; token?: string | null; fetch?: typeof fetch }): AgentryApi {
  const base = options.url.replace(/\/+$/, '');
  const send = options.fetch ?? fetch;
  return {
    authenticated: Boolean(options.token),
    howToAuthenticate: AUTHENTICATE_OVER_STDIO,
    async call(method, path, body) {
      let response: Response;
      try {
        response = await send(`${base}${path}`, {
          method,
          headers: {
            accept: 'application/json',
            ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { status: 503, body: { code: 'UNAVAILABLE', message: `Could not reach the Agentry service at ${base}: ${reason}` } };
      }
      const text = await response.text();
      try {
        return { status: response.status, body: text ? JSON.parse(text) : null };
      } catch {
        return {
          status: response.status >= 400 ? response.status : 502,
          body: { code: 'BAD_GATEWAY', message: `${base} answered with something other than JSON` },
        };
      }
    },
  };
}

/** Serves the tools on stdin/stdout until the client closes them. */
export async function runStdioServer(options: { url: string; token?: string | null }): Promise<void> {
  const server = createAgentryMcpServer(createHttpApi(options));
  await server.connect(new StdioServerTransport());
}
