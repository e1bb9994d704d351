export { registerAgentCardRoute, serviceAgentCard } from './agent-card.ts';
