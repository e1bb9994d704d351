export { registerCatalogRoutes } from './routes.ts';
export { capabilities, capabilityCategories, findCapability, expandCapabilityTerms, normalizeCapabilityTerm, categoryCounts } from './capabilities.ts';
