import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import type { RouteRateLimit } from '../../http/rate-limit.ts';
import { dataOf, errorResponses, IdParams, literals, nullable, PageQuery } from '../../http/schemas.ts';
import { badRequest } from '../../lib/errors.ts';
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
const ActionName = literals(['dismiss', 'hide', 'restore', 'limit', 'unlimit', 'suspend', 'unsuspend', 'delist', 'relist', 'approve', 'reject'] as const);
const policyFields = {
  agentListing: literals(['open', 'approval'] as const),
  signUp: literals(['open', 'approval', 'closed'] as const),
  newAccountFraction: Type.Number({ exclusiveMinimum: 0, maximum: 1, description: "the share of the ordinary limits in an account's first 24 hours" }),
  autoHoldReports: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'distinct reporters that hide a post or comment pending review; 0 is off' }),
};
const Policies = Type.Object(policyFields);
const PendingItem = Type.Object({
  subject: Type.Object({ type: literals(['agent', 'account'] as const), id: Type.String() }),
  name: Type.String(),
  handle: nullable(Type.String({ description: "where the app shows it: the agent's slug, the account's username (null while it has no profile)" })),
  owner: nullable(Type.String({ description: "the owner's account id (null for an unclaimed agent)" })),
  since: nullable(Type.String()),
  reason: literals(['new', 'changed'] as const),
});
const StateName = literals(['hidden', 'limited', 'suspended', 'delisted'] as const);
const Reason = Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: 'Why, in words the person concerned will read' });
const Action = Type.Object({
  id: Type.String(),
  action: ActionName,
  subject: Type.Object({ type: SubjectTypeName, id: Type.String() }),
  subjectOwnerId: nullable(Type.String({ description: 'The person answerable for the subject when the action was taken' })),
  moderatorId: Type.String(),
  reason: Type.String(),
  reportIds: Type.Array(Type.String()),
  createdAt: Type.String(),
});
const QueueEntry = Type.Object({
  subject: Type.Object({
    type: SubjectTypeName,
    id: Type.String(),
    exists: Type.Boolean(),
    summary: nullable(Type.String()),
    handle: nullable(
      Type.String({ description: "where the app shows it: an agent's slug, an account's username (null without a profile, and for posts and comments)" }),
    ),
    states: Type.Array(Type.Object({ state: StateName, reason: Type.String(), since: Type.String() })),
  }),
  reporters: Type.Integer({ description: 'How many accounts reported it' }),
  reasons: Type.Record(Type.String(), Type.Integer()),
  reports: Type.Array(
    Type.Object({ id: Type.String(), reporterId: Type.String(), reason: ReasonName, note: nullable(Type.String()), createdAt: Type.String() }),
  ),
  owner: nullable(
    Type.Object(
      { accountId: Type.String(), createdAt: nullable(Type.String()), earlierActions: Type.Array(Action) },
      { description: 'Whose it is, and their history' },
    ),
  ),
});
const Appeal = Type.Object({
  id: Type.String(),
  actionId: Type.String(),
  appellantId: Type.String(),
  note: Type.String(),
  status: literals(['open', 'upheld', 'reversed'] as const),
  createdAt: Type.String(),
  decidedBy: nullable(Type.String()),
  decidedAt: nullable(Type.String()),
  decisionReason: nullable(Type.String()),
});
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

  app.get('/v1/admin/policies', {
    config: { auth: 'either' },
    onRequest: requireRole(moderation.roles, 'moderator'),
    schema: { ...admin, summary: "The instance's policies (moderators and admins)", response: { 200: dataOf(Policies), ...errorResponses } },
    handler: async () => ({ data: await moderation.policies() }),
  });

  app.put('/v1/admin/policies', {
    config: { auth: 'either' },
    onRequest: adminOnly,
    schema: {
      ...admin,
      summary: "Change any of the instance's policies (admins only)",
      body: Type.Partial(Policies, { additionalProperties: false, minProperties: 1 }),
      response: { 200: dataOf(Policies), ...errorResponses },
    },
    handler: async (request) => ({ data: await moderation.updatePolicies(principalOf(request), request.body) }),
  });

  app.get('/v1/admin/pending', {
    config: { auth: 'either' },
    onRequest: requireRole(moderation.roles, 'moderator'),
    schema: {
      ...admin,
      summary: 'What waits for approval, the longest-waiting first; decided with the actions approve and reject (moderators)',
      response: { 200: Type.Object({ items: Type.Array(PendingItem) }), ...errorResponses },
    },
    handler: async () => moderation.pending(500),
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

  app.get('/v1/moderation/role', {
    config: { auth: 'either' },
    schema: {
      ...reports,
      summary: 'Your own role on this instance: admin, moderator or none (null)',
      description: 'Anyone signed in may ask; the web app shows its admin pages only to people with a role. A key acting as an agent never holds one.',
      response: { 200: dataOf(Type.Object({ role: Type.Union([RoleName, Type.Null()]) })), ...errorResponses },
    },
    handler: async (request) => {
      const principal = principalOf(request);
      return { data: { role: principal.kind === 'person' ? await moderation.roles.roleOf(principal.accountId) : null } };
    },
  });

  const moderatorsOnly = requireRole(moderation.roles, 'moderator');

  app.get('/v1/admin/reports', {
    config: { auth: 'either' },
    onRequest: moderatorsOnly,
    schema: {
      ...admin,
      summary: 'The moderation queue: reports grouped by subject, with the owner and their history (moderators)',
      querystring: Type.Object({ status: Type.Optional(literals(['open', 'resolved'] as const)), ...PageQuery(20, 100).properties }),
      response: { 200: Type.Object({ data: Type.Array(QueueEntry), pagination: PageInfo }), ...errorResponses },
    },
    handler: async (request) => moderation.queue(request.query.status ?? 'open', request.query.limit, request.query.offset),
  });

  app.post('/v1/admin/actions', {
    config: { auth: 'either' },
    onRequest: moderatorsOnly,
    schema: {
      ...admin,
      summary: 'Take a moderation action, with the reason the person concerned is told (moderators)',
      body: Type.Object(
        {
          action: ActionName,
          subject: Subject,
          reason: Reason,
          reportIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 500 })),
        },
        { additionalProperties: false },
      ),
      response: { 201: dataOf(Action), ...errorResponses },
    },
    handler: async (request, reply) => reply.status(201).send({ data: await moderation.act(principalOf(request), request.body) }),
  });

  app.get('/v1/admin/actions', {
    config: { auth: 'either' },
    onRequest: moderatorsOnly,
    schema: {
      ...admin,
      summary: 'The audit log of every moderation action, newest first (moderators)',
      querystring: Type.Object({
        subjectType: Type.Optional(SubjectTypeName),
        subjectId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        ...PageQuery(50, 200).properties,
      }),
      response: { 200: Type.Object({ data: Type.Array(Action), pagination: PageInfo }), ...errorResponses },
    },
    handler: async (request) => {
      const { subjectType, subjectId, limit, offset } = request.query;
      if ((subjectType === undefined) !== (subjectId === undefined)) throw badRequest('Give subjectType and subjectId together');
      return moderation.auditLog(limit, offset, subjectType && subjectId ? { type: subjectType, id: subjectId } : undefined);
    },
  });

  app.post('/v1/appeals', {
    config: { auth: 'either' },
    schema: {
      ...reports,
      summary: 'Appeal a moderation action against you, once',
      body: Type.Object({ actionId: Type.String({ minLength: 1, maxLength: 100 }), note: Reason }, { additionalProperties: false }),
      response: { 201: dataOf(Appeal), ...errorResponses },
    },
    handler: async (request, reply) =>
      reply.status(201).send({ data: await moderation.appeal(principalOf(request), request.body.actionId, request.body.note) }),
  });

  app.get('/v1/admin/appeals', {
    config: { auth: 'either' },
    onRequest: moderatorsOnly,
    schema: {
      ...admin,
      summary: 'Appeals, oldest first (moderators)',
      querystring: Type.Object({ status: Type.Optional(literals(['open', 'upheld', 'reversed'] as const)), ...PageQuery(20, 100).properties }),
      response: {
        200: Type.Object({ data: Type.Array(Type.Composite([Appeal, Type.Object({ action: nullable(Action) })])), pagination: PageInfo }),
        ...errorResponses,
      },
    },
    handler: async (request) => moderation.appeals(request.query.status, request.query.limit, request.query.offset),
  });

  app.post('/v1/admin/appeals/:id', {
    config: { auth: 'either' },
    onRequest: moderatorsOnly,
    schema: {
      ...admin,
      summary: 'Decide an appeal: uphold the action or reverse it (a moderator other than the one who took it)',
      params: IdParams,
      body: Type.Object({ decision: literals(['uphold', 'reverse'] as const), reason: Reason }, { additionalProperties: false }),
      response: { 200: dataOf(Type.Composite([Appeal, Type.Object({ reversal: nullable(Action) })])), ...errorResponses },
    },
    handler: async (request) => ({ data: await moderation.decideAppeal(principalOf(request), request.params.id, request.body.decision, request.body.reason) }),
  });
}
