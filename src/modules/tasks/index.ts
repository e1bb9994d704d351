export { createTasksStore, type TaskSettlement, type CompletedTask } from './store.ts';
export { createTasksService, type TasksService } from './service.ts';
export { createAssigner } from './assignment.ts';
export { createA2aSender, type A2aSender } from './a2a-sender.ts';
export { createDeliveryHandOff, createDeliveryWorker, type DeliveryWorker, type DeliveryOptions } from './delivery-worker.ts';
export { registerTasksRoutes } from './routes.ts';
export { createStatusEventsStore, type StatusEventsStore, type TaskStatusEvent } from './status-events.ts';
export { createBuiltinExtractor, createModelExtractor, outboundFetch } from './extract/index.ts';
export type * from './tables.ts';
