export { registerCatalogRoutes } from './routes.ts';
export type { Capability } from './capabilities.ts';
export { capabilities, capabilityCategories, findCapability, expandCapabilityTerms, normalizeCapabilityTerm, categoryCounts } from './capabilities.ts';
export { taskClassOf } from './task-class.ts';
