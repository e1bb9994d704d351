export { createEventsService, type EventsService, type LiveSource } from './service.ts';
export { EVENTS_CHANNEL } from '../tasks/index.ts';
export { registerEventsRoutes } from './routes.ts';
