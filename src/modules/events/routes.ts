import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { credentialTokenOf, principalOf } from '../../http/auth.ts';
import { clientAddressKey } from '../../http/client-address.ts';
import type { Authenticator } from '../../lib/principal.ts';
import { AppError } from '../../lib/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { EventStream, EventsService } from './service.ts';

const EventsQuery = Type.Object(
  {
    follow: Type.Boolean({ default: true, description: 'false: send what is missed since Last-Event-ID, then end the response' }),
  },
  { additionalProperties: false },
);

const EventsHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ pattern: '^(0|[1-9][0-9]{0,14})$', description: 'the id of the last event received (a plain decimal number): the stream resumes after it' }),
  ),
});

export function registerEventsRoutes(root: FastifyInstance, events: EventsService, authenticator: Authenticator): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/events', {
    config: { auth: 'either' },
    schema: {
      tags: ['events'],
      security: [{ bearer: [] }],
      summary:
        "Server-sent events of your account: your tasks' status changes (and those of tasks assigned to your agents), notifications, followed accounts' posts",
      description:
        'Each event: `id` (resume with Last-Event-ID), `event` (`task.status`), `data` ({ taskId, status, at, role }). ' +
        'Also, without an id (not replayed): `notification` ({ notification, unread }) and `post` ({ post }, a new post by an account you follow). ' +
        'Ignore event names you do not know: more may be added. ' +
        'A `reset` event means the events since the given id are no longer kept: load the data again. ' +
        'A `: keep-alive` comment comes every EVENTS_HEARTBEAT_SECONDS.',
      querystring: EventsQuery,
      headers: EventsHeaders,
      response: { 200: { content: { 'text/event-stream': { schema: Type.String() } } }, ...errorResponses },
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const token = credentialTokenOf(request);
      // Listening before the stream is opened: a client that leaves while it opens must still let its place go.
      let left = false;
      let stream: EventStream | null = null;
      reply.raw.once('close', () => {
        left = true;
        stream?.close();
      });
      stream = await events.open(principal, request.headers['last-event-id'], request.query.follow, {
        address: clientAddressKey(request.ip),
        // The credential is checked again while the stream is open, so revoking a key or logging out ends it.
        async stillValid() {
          if (token === undefined) return false;
          const now = await Promise.resolve(authenticator.authenticate(token)).catch((error: unknown) => {
            // A suspension or rejection ends the stream as a revocation does; any other failure is the check's own.
            if (error instanceof AppError && (error.code === 'ACCOUNT_SUSPENDED' || error.code === 'ACCOUNT_REJECTED')) return null;
            throw error;
          });
          return now !== null && now.accountId === principal.accountId && now.credentialId === principal.credentialId;
        },
        // What Node holds for the client beyond the stream's own buffer: the socket's unsent bytes.
        socketBytes: () => request.raw.socket?.writableLength ?? 0,
      });
      if (left) stream.close();
      return (
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache, no-transform')
          // Proxies such as nginx would otherwise hold events back to fill a buffer.
          .header('x-accel-buffering', 'no')
          .send(stream.body)
      );
    },
  });
}
