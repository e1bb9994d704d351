export { createArdService, type ArdService, type RankedAgent } from './service.ts';
export { registerArdRoutes } from './routes.ts';
