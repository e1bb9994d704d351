export { createEventsService, EVENTS_CHANNEL, type EventsService, type LiveSource } from './service.ts';
export { registerEventsRoutes } from './routes.ts';
