export { createEvidenceSweep, type EvidenceSweep } from './evidence-sweep.ts';
export { createReceiptsStore } from './store.ts';
export { createSignatureVerifier } from './signature-verifier.ts';
export { createReceiptsService, signedBytes, type ReceiptsService, type TrustLookup } from './service.ts';
export { registerReceiptsRoutes } from './routes.ts';
export type { ClassTrust } from './trust.ts';
export { TaskClass } from './schemas.ts';
export type * from './tables.ts';
