export { createWitness, type Witness } from './service.ts';
export { createWitnessClient, type WitnessClient } from './client.ts';
export { createWitnessStore, type WitnessStore } from './store.ts';
export { registerWitnessRoutes } from './routes.ts';
export type * from './tables.ts';
