export { JWKS_PATH, registerAgentCardRoute, serviceAgentCard, signedServiceAgentCard } from './agent-card.ts';
export { createA2aFrontDoor, type A2aFrontDoor } from './front-door.ts';
export { A2A_PATH, registerA2aRoutes } from './routes.ts';
