export { registerMcpRoutes } from './routes.ts';
export { createAgentryMcpServer, type AgentryApi, type ApiResponse } from './tools.ts';
