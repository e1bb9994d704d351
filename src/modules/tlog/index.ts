export { createTransparencyLog, originFor, MAX_ENTRY_BYTES, type TransparencyLog } from './service.ts';
export type { NoteSigner } from './keys.ts';
export { registerTlogRoutes } from './routes.ts';
export { createLogSequencer, type LogQueue, type LogSequencer } from './sequencer.ts';
export type * from './tables.ts';
