export { createDiscoveryStore } from './store.ts';
export { createDiscoveryService, type DiscoveryService } from './service.ts';
export { registerDiscoveryRoutes } from './routes.ts';
export { createRemoteEmbedder, createWordVectorEmbedder, type Embedder } from './embedder.ts';
export { createSentenceEncoder, type SentenceEncoder } from './sentence-encoder.ts';
export { MAX_RESULTS as DISCOVERY_MAX_OFFSET, WEAK_MATCH_FLOOR, isWeakMatch } from './ranking.ts';
export type * from './tables.ts';
export { createVectorMatrix, type VectorMatrix } from './vector-matrix.ts';
export { DOT_KERNEL_WASM, DOT_KERNEL_WAT, instantiateDotKernel } from './dot-kernel.ts';
