export { createMediaStore } from './store.ts';
export { createMediaService, MEDIA_MAX_BYTES, type MediaService } from './service.ts';
export { registerMediaRoutes } from './routes.ts';
export type * from './tables.ts';
