export { countingStatusChanges, createTasksStore, type TaskSettlement, type CompletedTask } from './store.ts';
export { createTasksService, type TasksService } from './service.ts';
export { createAssigner } from './assignment.ts';
export { createA2aSender, type A2aSender } from './a2a-sender.ts';
export { createDeliveryHandOff, createDeliveryWorker, type DeliveryWorker, type DeliveryOptions } from './delivery-worker.ts';
export { registerTasksRoutes } from './routes.ts';
export { CreateTask, type CreateTaskInput, type TaskStatus, type TaskView } from './schemas.ts';
export { createStatusEventsStore, type StatusEventsStore, type TaskStatusEvent } from './status-events.ts';
export type * from './tables.ts';
