export { createMediaStore } from './store.ts';
export { attachedMediaView, createMediaService, MAX_ATTACHED, MEDIA_MAX_BYTES, type AttachedMedia, type Attachment, type MediaService } from './service.ts';
export { registerMediaRoutes } from './routes.ts';
export type * from './tables.ts';
