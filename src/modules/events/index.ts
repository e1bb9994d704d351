export { createEventsService, EVENTS_CHANNEL, type EventsService } from './service.ts';
export { registerEventsRoutes } from './routes.ts';
