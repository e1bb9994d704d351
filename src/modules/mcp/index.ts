export { registerMcpRoutes } from './routes.ts';
export { createAgentryMcpServer, type AgentryApi, type ApiResponse } from './tools.ts';
export { createHttpApi, runStdioServer } from './stdio.ts';
