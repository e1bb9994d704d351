export { createUsersStore } from './store.ts';
export { createUsersService, profileView, type UsersService } from './service.ts';
export { registerUsersRoutes } from './routes.ts';
export { checkUsername } from './usernames.ts';
export type * from './tables.ts';
