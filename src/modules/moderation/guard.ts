import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, unauthorized } from '../../lib/errors.ts';
import type { RolesStore } from './roles.ts';
import type { ModeratorRole } from './tables.ts';

/**
 * The onRequest hook of every admin route: it runs after authentication and before the body is read
 * or validated, so a caller without the role learns nothing about what the route accepts. The role
 * is read on every request (one indexed row), so a revocation holds from the next request on.
 * A key acting as an agent is the agent's own account, which never holds a role.
 */
export function requireRole(roles: RolesStore, needed: ModeratorRole) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const principal = request.principal;
    if (!principal) throw unauthorized();
    const role = principal.kind === 'person' ? await roles.roleOf(principal.accountId) : null;
    if (role === null) throw new AppError('FORBIDDEN', 'This route is for moderators and admins of the instance');
    if (needed === 'admin' && role !== 'admin') throw new AppError('FORBIDDEN', 'Only admins of the instance can do this; moderators cannot');
  };
}
