/**
 * Agentry's MCP tools, defined once: the service serves them at /mcp (over its own routes) and
 * `agentry mcp` serves them over stdio (over HTTP to a service), so both offer exactly the same tools.
 */
export { createAgentryMcpServer, MCP_SERVER_NAME, MCP_SERVER_VERSION, type AgentryApi, type ApiResponse } from './tools.ts';
export { createHttpApi, runStdioServer } from './stdio.ts';
