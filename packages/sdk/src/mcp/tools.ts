/**
 * The MCP tools, defined once over a small API interface: the service answers them through its own
 * /v1 routes (inject, with the caller's credential), the stdio server through HTTP. Either way the
 * API decides who may see and do what.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface ApiResponse {
  status: number;
  body: unknown;
}

export interface AgentryApi {
  /** Whether calls carry a credential; without one only public routes answer. */
  readonly authenticated: boolean;
  /** What a caller of this transport does to get a credential: the tools say it when one is missing or refused. */
  readonly howToAuthenticate: string;
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiResponse>;
}

export const MCP_SERVER_NAME = 'agentry';
export const MCP_SERVER_VERSION = '0.1.0';

const needsCredential = (api: AgentryApi) => `This tool needs a credential: ${api.howToAuthenticate}.`;

const text = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

/** An API error as a tool error, so the model reads why rather than the client seeing a protocol failure. */
function failure(api: AgentryApi, response: ApiResponse): CallToolResult {
  const body = response.body as { code?: unknown; message?: unknown } | null;
  const code = typeof body?.code === 'string' ? body.code : `HTTP_${response.status}`;
  const message = typeof body?.message === 'string' ? body.message : 'The request failed';
  return text(response.status === 401 ? `${code}: ${message}. ${needsCredential(api)}` : `${code}: ${message}`, true);
}

async function answer(api: AgentryApi, method: 'GET' | 'POST', path: string, body?: unknown): Promise<CallToolResult> {
  const response = await api.call(method, path, body);
  if (response.status >= 400) return failure(api, response);
  return text((response.body as { data?: unknown } | null)?.data ?? response.body);
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value));
  const encoded = search.toString();
  return encoded ? `?${encoded}` : '';
}

const segment = (value: string) => encodeURIComponent(value);

export function createAgentryMcpServer(api: AgentryApi): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION });

  server.registerTool(
    'search_agents',
    {
      title: 'Search agents',
      description: 'Find agents by what they do, ranked by relevance, trust and availability. Omit query to browse.',
      inputSchema: {
        query: z.string().max(500).optional().describe('What you need, in your own words'),
        capability: z.string().min(1).max(60).optional().describe('A capability slug or alias, e.g. "summarization"'),
        category: z.string().max(40).optional(),
        protocol: z.string().max(20).optional().describe('rest, mcp, a2a, ...'),
        limit: z.number().int().min(1).max(50).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ query: q, capability, category, protocol, limit }) => {
      const response = await api.call('GET', `/v1/discover${query({ q, capability, category, protocol, limit })}`);
      if (response.status >= 400) return failure(api, response);
      return text(response.body);
    },
  );

  server.registerTool(
    'get_agent',
    {
      title: 'Show an agent',
      description: 'One agent by id or slug, with its trust: the overall score and, when it has a proven key, per task class.',
      inputSchema: { agent: z.string().min(1).max(100).describe('The agent id or slug') },
      annotations: { readOnlyHint: true },
    },
    async ({ agent }) => {
      let found = await api.call('GET', `/v1/discover/${segment(agent)}`);
      if (found.status === 404) {
        const byId = await api.call('GET', `/v1/agents/${segment(agent)}`);
        if (byId.status >= 400) return failure(api, found);
        const slug = (byId.body as { data: { slug: string } }).data.slug;
        found = await api.call('GET', `/v1/discover/${segment(slug)}`);
      }
      if (found.status >= 400) return failure(api, found);
      const data = (found.body as { data: Record<string, unknown> }).data;
      const pubkey = typeof data.registrationPubkey === 'string' && data.keyVerified === true ? data.registrationPubkey : null;
      if (!pubkey) return text({ agent: data, trust: { score: data.trust } });
      const perClass = await api.call('GET', `/v1/trust${query({ pubkey })}`);
      return text({
        agent: data,
        trust: { score: data.trust, ...(perClass.status === 200 ? { byTaskClass: (perClass.body as { data: unknown }).data } : {}) },
      });
    },
  );

  server.registerTool(
    'list_capabilities',
    {
      title: 'List capabilities',
      description: 'The standardized capability catalogue: slugs, names, categories and aliases to search or route by.',
      annotations: { readOnlyHint: true },
    },
    async () => {
      const response = await api.call('GET', '/v1/capabilities');
      if (response.status >= 400) return failure(api, response);
      return text(response.body);
    },
  );

  server.registerTool(
    'submit_task',
    {
      title: 'Submit a task',
      description:
        'Submit work: routed to the best agent you may use and delivered to it. A plain-language description is enough; ' +
        'capabilities, an agent id or structured input narrow it. Follow it with get_task. Needs a credential.',
      inputSchema: {
        description: z.string().min(1).max(10_000).describe('What needs doing, in your own words'),
        title: z.string().min(1).max(200).optional(),
        capabilities: z.array(z.string().min(1).max(60)).max(20).optional(),
        agentId: z.string().min(1).max(100).optional().describe('Send to this agent rather than the best match'),
        input: z.record(z.unknown()).optional().describe("Structured input matching the agent's inputSchema"),
        maxPriceCents: z.number().int().min(0).optional().describe('The most this task may cost; without it only free agents are chosen'),
        expiresInMinutes: z
          .number()
          .int()
          .min(1)
          .max(7 * 24 * 60)
          .optional(),
      },
    },
    async (args) => {
      if (!api.authenticated) return text(needsCredential(api), true);
      const body = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
      return answer(api, 'POST', '/v1/tasks', body);
    },
  );

  server.registerTool(
    'get_task',
    {
      title: 'Get a task',
      description: 'A task you submitted: its status, assigned agent, and result or error once it ends. Needs a credential.',
      inputSchema: { taskId: z.string().min(1).max(100) },
      annotations: { readOnlyHint: true },
    },
    async ({ taskId }) => {
      if (!api.authenticated) return text(needsCredential(api), true);
      return answer(api, 'GET', `/v1/tasks/${segment(taskId)}`);
    },
  );

  return server;
}
