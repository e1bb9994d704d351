import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { dataOf, errorResponses } from '../../http/schemas.ts';
import { CreateProfile, Profile, UpdateProfile, UsernameCheck, UsernameQuery } from './schemas.ts';
import type { ProfileView, UsersService } from './service.ts';

export function registerUsersRoutes(root: FastifyInstance, users: UsersService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['users'];
  const security = [{ bearer: [] }];
  const serializedProfiles = new WeakMap<ProfileView, string>();

  app.get('/v1/users/check', {
    config: { auth: 'none' },
    schema: { tags, summary: 'Is a username available?', querystring: UsernameQuery, response: { 200: UsernameCheck, ...errorResponses } },
    handler: async (request) => users.checkAvailability(request.query.username),
  });

  app.post('/v1/users', {
    config: { auth: 'either' },
    schema: { tags, summary: 'Create your social profile', security, body: CreateProfile, response: { 201: dataOf(Profile), ...errorResponses } },
    handler: async (request, reply) => reply.status(201).send({ data: await users.create(principalOf(request), request.body) }),
  });

  app.get('/v1/users/me', {
    config: { auth: 'either' },
    schema: { tags, summary: 'Your profile', security, response: { 200: dataOf(Profile), ...errorResponses } },
    handler: (request, reply) => {
      const found = users.me(principalOf(request));
      if (found instanceof Promise) return found.then((profile) => ({ data: profile }));
      // A cached profile is one frozen object until it changes, so its JSON is made once.
      let body = serializedProfiles.get(found);
      if (body === undefined) serializedProfiles.set(found, (body = reply.serialize({ data: found }) as string));
      return reply.type('application/json; charset=utf-8').send(body);
    },
  });

  app.patch('/v1/users/me', {
    config: { auth: 'either' },
    schema: { tags, summary: 'Change displayName, bio or avatarUrl', security, body: UpdateProfile, response: { 200: dataOf(Profile), ...errorResponses } },
    handler: async (request) => ({ data: await users.update(principalOf(request), request.body) }),
  });
}
