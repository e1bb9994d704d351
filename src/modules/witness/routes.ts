import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance } from 'fastify';
import { EMPTY_ROOT, parseVerifierKey, parseWitnessKey } from '@agentry/sdk/tlog';
import { sendError } from '../../http/errors.ts';
import { bodyOf, dataOf, errorResponses, nullable } from '../../http/schemas.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { AppError, badRequest, notFound } from '../../lib/errors.ts';
import { requireRole, type RolesStore } from '../moderation/index.ts';
import type { WitnessClient } from './client.ts';
import { OldSizeMismatch, type Witness } from './service.ts';
import type { WitnessStore } from './store.ts';

const TEXT = 'text/plain; charset=utf-8';
/** A checkpoint with a hundred signatures and 63 proof lines fit with room to spare. */
const ADD_CHECKPOINT_MAX_BYTES = 64 * 1024;
const MAX_LIST = 100;

const HttpUrl = Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://', description: 'an http(s) URL' });
const WitnessedLog = Type.Object(
  {
    origin: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\n]+$', description: "The log's checkpoint origin line" }),
    key: Type.String({ minLength: 1, maxLength: 500, description: "The log's verifier key (signed-note Ed25519, type 0x01)" }),
    url: nullable(Type.String({ maxLength: 2000, pattern: '^https?://', description: 'Where the log is published (for readers of the list)' })),
  },
  { additionalProperties: false },
);
const WitnessedLogState = Type.Object({
  origin: Type.String(),
  key: Type.String(),
  url: nullable(Type.String()),
  size: Type.Integer({ description: 'The size of the latest checkpoint this instance cosigned (0 before the first)' }),
});
const Peer = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 500, description: "The witness's cosignature verifier key (type 0x04)" }),
    url: { ...HttpUrl, description: "The witness's submission prefix: checkpoints are POSTed to <url>/add-checkpoint" },
  },
  { additionalProperties: false },
);

const invalidKey = (path: string, error: unknown) => badRequest(`Not a usable key: ${(error as Error).message}`, [{ path, message: (error as Error).message }]);

export function registerWitnessRoutes(
  root: FastifyInstance,
  { witness, client, store, roles, clock }: { witness: Witness; client: WitnessClient; store: WitnessStore; roles: RolesStore; clock: Clock },
): void {
  const tags = ['transparency log'];

  // add-checkpoint takes a text body of any declared type in a context of its own; the rest of the API keeps JSON only.
  void root.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: ADD_CHECKPOINT_MAX_BYTES }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((error: FastifyError, request, reply) =>
      sendError(
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? new AppError('PAYLOAD_TOO_LARGE', 'An add-checkpoint body is at most 64 KiB') : error,
        request,
        reply,
      ),
    );
    scope.withTypeProvider<TypeBoxTypeProvider>().post('/.tlog/witness/add-checkpoint', {
      config: { auth: 'none' },
      bodyLimit: ADD_CHECKPOINT_MAX_BYTES,
      schema: {
        tags,
        summary: 'Ask this instance to cosign a checkpoint of a log it witnesses (c2sp.org/tlog-witness)',
        description:
          "The body is `old <size>`, the consistency proof lines, an empty line and the signed checkpoint. 200: the cosignature line. 400: the body does not parse, or the old size is beyond the checkpoint. 404: the origin is not witnessed here. 403: no valid signature by the log's key. 409: the old size is not the size last cosigned (that size is the body, as text/x.tlog.size). 422: the proof does not verify.",
        response: {
          200: bodyOf('text/plain', 'The cosignature: one signed-note signature line'),
          409: bodyOf('text/x.tlog.size', 'The size of the latest checkpoint cosigned for the log, in decimal'),
          ...errorResponses,
        },
      },
      handler: async (request, reply) => {
        try {
          return reply.type(TEXT).send(await witness.addCheckpoint(typeof request.body === 'string' ? request.body : ''));
        } catch (error) {
          if (error instanceof OldSizeMismatch) return reply.status(409).type('text/x.tlog.size').send(`${error.size}\n`);
          throw error;
        }
      },
    });
  });

  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/.tlog/witness/key', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: "This instance's witness verifier key (cosignature/v1, type 0x04)",
      response: { 200: bodyOf('text/plain', 'The verifier key and a newline'), ...errorResponses },
    },
    handler: async (_request, reply) => reply.type(TEXT).send(`${witness.verifierKey()}\n`),
  });

  app.get('/.tlog/witness/:originHash/checkpoint', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'The latest checkpoint this instance cosigned for a log, with its cosignature (monitor retrieval, c2sp.org/tlog-witness)',
      params: Type.Object({ originHash: Type.String({ pattern: '^[0-9a-f]{64}$', description: "hex SHA-256 of the log's origin" }) }),
      response: { 200: bodyOf('text/plain', 'The cosigned checkpoint'), ...errorResponses },
    },
    handler: async (request, reply) => {
      const log = (await store.activeLogs()).find((entry) => createHash('sha256').update(entry.origin).digest('hex') === request.params.originHash);
      if (!log?.checkpoint) throw notFound('This witness has cosigned no checkpoint of that log');
      return reply.type(TEXT).header('cache-control', 'no-cache').send(log.checkpoint);
    },
  });

  const admin = { tags, security: [{ bearer: [] }] };
  const adminOnly = requireRole(roles, 'admin');
  const logsView = async () => (await store.activeLogs()).map((log) => ({ origin: log.origin, key: log.verifierKey, url: log.url, size: log.size }));

  app.get('/v1/admin/witnessed-logs', {
    config: { auth: 'either' },
    onRequest: adminOnly,
    schema: {
      ...admin,
      summary: 'The logs this instance witnesses (admins only)',
      response: { 200: dataOf(Type.Array(WitnessedLogState)), ...errorResponses },
    },
    handler: async () => ({ data: await logsView() }),
  });

  app.put('/v1/admin/witnessed-logs', {
    config: { auth: 'either' },
    onRequest: adminOnly,
    schema: {
      ...admin,
      summary: 'Set the logs this instance witnesses (admins only): the whole list; a log taken off and listed again keeps what was cosigned',
      body: Type.Object({ logs: Type.Array(WitnessedLog, { maxItems: MAX_LIST }) }, { additionalProperties: false }),
      response: { 200: dataOf(Type.Array(WitnessedLogState)), ...errorResponses },
    },
    handler: async (request) => {
      const { logs } = request.body;
      const origins = new Set<string>();
      logs.forEach((log, i) => {
        try {
          parseVerifierKey(log.key);
        } catch (error) {
          throw invalidKey(`/body/logs/${i}/key`, error);
        }
        if (origins.has(log.origin)) throw badRequest(`The log ${log.origin} is listed twice`, [{ path: `/body/logs/${i}/origin`, message: 'listed twice' }]);
        origins.add(log.origin);
      });
      await store.replaceLogs(
        logs.map((log) => ({ origin: log.origin, verifierKey: parseVerifierKey(log.key).text, url: log.url })),
        EMPTY_ROOT,
        isoNow(clock),
      );
      return { data: await logsView() };
    },
  });

  const peersView = async () => (await store.peers()).map((peer) => ({ key: peer.verifierKey, url: peer.url }));

  app.get('/v1/admin/witnesses', {
    config: { auth: 'either' },
    onRequest: adminOnly,
    schema: {
      ...admin,
      summary: "The witnesses this instance asks to cosign its logs' checkpoints (admins only)",
      response: { 200: dataOf(Type.Array(Peer)), ...errorResponses },
    },
    handler: async () => ({ data: await peersView() }),
  });

  app.put('/v1/admin/witnesses', {
    config: { auth: 'either' },
    onRequest: adminOnly,
    schema: {
      ...admin,
      summary: "Set the witnesses this instance asks to cosign its logs' checkpoints (admins only): the whole list",
      body: Type.Object({ witnesses: Type.Array(Peer, { maxItems: MAX_LIST }) }, { additionalProperties: false }),
      response: { 200: dataOf(Type.Array(Peer)), ...errorResponses },
    },
    handler: async (request) => {
      const keys = new Set<string>();
      const peers = request.body.witnesses.map((peer, i) => {
        let key: string;
        try {
          key = parseWitnessKey(peer.key).text;
        } catch (error) {
          throw invalidKey(`/body/witnesses/${i}/key`, error);
        }
        if (keys.has(key)) throw badRequest('A witness is listed twice', [{ path: `/body/witnesses/${i}/key`, message: 'listed twice' }]);
        keys.add(key);
        return { verifierKey: key, url: peer.url };
      });
      await store.replacePeers(peers, isoNow(clock));
      client.forgetFailures();
      return { data: await peersView() };
    },
  });
}
