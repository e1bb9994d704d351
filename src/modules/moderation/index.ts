export { createRolesStore, type RolesStore } from './roles.ts';
export { requireRole } from './guard.ts';
export { notHiddenByModerators } from './hidden.ts';
export { createModerationStore, type ModerationStore, type SubjectRecord } from './store.ts';
export { actionView, createModerationService, type ActionView, type ModerationService } from './service.ts';
export { registerModerationRoutes } from './routes.ts';
export { runAdminCommand } from './admin-command.ts';
export type * from './tables.ts';
export { createPolicies, type InstancePolicies, type Policies } from './policies.ts';
