import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import type { RouteRateLimit } from '../../http/rate-limit.ts';
import { dataOf, errorResponses, literals, nullable, PageQuery } from '../../http/schemas.ts';
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
export const SubjectTypeName = literals(['post', 'comment', 'agent', 'account'] as const);
export const Subject = Type.Object(
  {
    type: SubjectTypeName,
    id: Type.String({ minLength: 1, maxLength: 100, description: 'The post, comment or agent id; an account by its account id' }),
  },
  { additionalProperties: false },
);
const ReasonName = literals(['spam', 'abuse', 'impersonation', 'unsafe', 'illegal', 'other'] as const);
const ReportCreated = Type.Object({ id: Type.String(), status: literals(['open', 'resolved'] as const) });
const OwnReport = Type.Object({
  id: Type.String(),
  subject: Type.Object({ type: SubjectTypeName, id: Type.String() }),
  reason: ReasonName,
  note: nullable(Type.String()),
  status: literals(['open', 'resolved'] as const),
  createdAt: Type.String(),
  resolvedAt: nullable(Type.String()),
  outcome: nullable(Type.String({ description: 'The action that resolved the report (dismiss, hide, suspend...)' })),
});
const PageInfo = Type.Object({ limit: Type.Integer(), offset: Type.Integer(), hasMore: Type.Boolean() });
const AccountParams = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 100 }) });

export function registerModerationRoutes(root: FastifyInstance, moderation: ModerationService, options: { reportRateLimit: RouteRateLimit }): void {
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

  const reports = { tags: ['moderation'], security: [{ bearer: [] }] };

  app.post('/v1/reports', {
    config: { auth: 'either', rateLimit: options.reportRateLimit },
    schema: {
      ...reports,
      summary: 'Report a post, comment, agent or account to the moderators',
      body: Type.Object({ subject: Subject, reason: ReasonName, note: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false }),
      response: { 201: dataOf(ReportCreated), 200: dataOf(ReportCreated), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { created, report } = await moderation.report(principalOf(request), request.body);
      return reply.status(created ? 201 : 200).send({ data: report });
    },
  });

  app.get('/v1/reports', {
    config: { auth: 'either' },
    schema: {
      ...reports,
      summary: 'Your own reports and what became of them',
      querystring: PageQuery(20, 100),
      response: { 200: Type.Object({ data: Type.Array(OwnReport), pagination: PageInfo }), ...errorResponses },
    },
    handler: async (request) => moderation.ownReports(principalOf(request), request.query.limit, request.query.offset),
  });
}
