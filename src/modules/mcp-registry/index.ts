export { createMcpRegistryService, mcpServerNameOf, namespaceOf, OFFICIAL_META, type McpRegistryService } from './service.ts';
export { registerMcpRegistryRoutes } from './routes.ts';
