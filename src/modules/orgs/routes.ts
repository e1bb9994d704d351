import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { dataOf, errorResponses, IdParams } from '../../http/schemas.ts';
import type { OrgsService } from './service.ts';

const Org = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Type.String(),
  members: Type.Array(
    Type.Object({
      accountId: Type.String(),
      username: Type.Union([Type.String(), Type.Null()]),
      role: Type.Union([Type.Literal('owner'), Type.Literal('member')]),
      joinedAt: Type.String(),
    }),
  ),
});
const MemberTarget = Type.Object(
  {
    accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 25 })),
    role: Type.Optional(Type.Union([Type.Literal('owner'), Type.Literal('member')])),
  },
  { additionalProperties: false },
);
const MemberRemoval = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export function registerOrgsRoutes(root: FastifyInstance, orgs: OrgsService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const common = { tags: ['orgs'], security: [{ bearer: [] }] };

  app.post('/v1/orgs', {
    config: { auth: 'either' },
    schema: {
      ...common,
      summary: 'Create an organization (you become its owner)',
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
      response: { 201: dataOf(Org), ...errorResponses },
    },
    handler: async (request, reply) => reply.status(201).send({ data: await orgs.create(principalOf(request), request.body.name) }),
  });

  app.get('/v1/orgs/:id', {
    config: { auth: 'either' },
    schema: { ...common, summary: 'An organization and its members (members only)', params: IdParams, response: { 200: dataOf(Org), ...errorResponses } },
    handler: async (request) => ({ data: await orgs.get(principalOf(request), request.params.id) }),
  });

  app.post('/v1/orgs/:id/members', {
    config: { auth: 'either' },
    schema: {
      ...common,
      summary: 'Add a member by accountId or username (owners only)',
      params: IdParams,
      body: MemberTarget,
      response: { 201: dataOf(Org), ...errorResponses },
    },
    handler: async (request, reply) => reply.status(201).send({ data: await orgs.addMember(principalOf(request), request.params.id, request.body) }),
  });

  app.delete('/v1/orgs/:id/members', {
    config: { auth: 'either' },
    schema: {
      ...common,
      summary: 'Remove a member (owners), or leave (yourself)',
      params: IdParams,
      body: MemberRemoval,
      response: { 200: dataOf(Org), ...errorResponses },
    },
    handler: async (request) => ({ data: await orgs.removeMember(principalOf(request), request.params.id, request.body.accountId) }),
  });
}
