import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { dataOf, errorResponses, literals, nullable } from '../../http/schemas.ts';
import { requireRole } from './guard.ts';
import type { ModerationService } from './service.ts';

const RoleName = literals(['admin', 'moderator'] as const);
const Role = Type.Object({
  accountId: Type.String(),
  email: nullable(Type.String()),
  role: RoleName,
  grantedBy: nullable(Type.String({ description: 'The admin who granted it; null when granted with the command on the server' })),
  grantedAt: Type.String(),
});
const AccountParams = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 100 }) });

export function registerModerationRoutes(root: FastifyInstance, moderation: ModerationService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const admin = { tags: ['moderation'], security: [{ bearer: [] }] };
  const adminOnly = requireRole(moderation.roles, 'admin');

  app.get('/v1/admin/roles', {
    config: { auth: 'either' },
    onRequest: adminOnly,
    schema: { ...admin, summary: 'Everyone holding a role (admins only)', response: { 200: dataOf(Type.Array(Role)), ...errorResponses } },
    handler: async () => ({ data: await moderation.listRoles() }),
  });

  app.put('/v1/admin/roles/:accountId', {
    config: { auth: 'either' },
    onRequest: adminOnly,
    schema: {
      ...admin,
      summary: 'Give a person a role, or change it (admins only)',
      params: AccountParams,
      body: Type.Object({ role: RoleName }, { additionalProperties: false }),
      response: { 200: dataOf(Role), ...errorResponses },
    },
    handler: async (request) => ({ data: await moderation.grantRole(principalOf(request), request.params.accountId, request.body.role) }),
  });

  app.delete('/v1/admin/roles/:accountId', {
    config: { auth: 'either' },
    onRequest: adminOnly,
    schema: {
      ...admin,
      summary: "Take a person's role away (admins only; never the last admin)",
      params: AccountParams,
      response: { 200: dataOf(Type.Object({ accountId: Type.String(), revoked: RoleName })), ...errorResponses },
    },
    handler: async (request) => ({ data: await moderation.revokeRole(request.params.accountId) }),
  });
}
