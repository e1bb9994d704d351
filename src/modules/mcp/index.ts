export { registerMcpRoutes } from './routes.ts';
