export { createRegistryStore } from './store.ts';
export { createRegistryService, type RegistryService, type Availability } from './service.ts';
export { registerAgentFeedRoute, registerRegistryRoutes } from './routes.ts';
export { createAgentFeed, createFeedCursors, createFeedStore } from './feed.ts';
export { checkInputAgainstSchema, validateInputSchema, type InputSchema, type InputFieldDefinition } from './input-schema.ts';
export { Agent, protocolValues } from './schemas.ts';
export { agentRecordOf, type AgentRecord } from './store.ts';
export { createManifestImporter, readManifest, type ManifestImporter } from './manifest.ts';
export type * from './tables.ts';
