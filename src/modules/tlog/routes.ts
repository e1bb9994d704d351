import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { bodyOf, errorResponses } from '../../http/schemas.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { ConsistencyProof, ConsistencyQuery, TilePath } from './schemas.ts';
import type { TransparencyLog } from './service.ts';
import { parseTilePath } from './tile-path.ts';

const TEXT = 'text/plain; charset=utf-8';
const BYTES = 'application/octet-stream';
/** Full tiles and bundles never change; partial ones are superseded as the log grows. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=5';

const gzipped = promisify(gzip);

/** Whether an Accept-Encoding header takes gzip (named, or `*`, without `q=0`). */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const refused = params.some((param) => /^q=0(\.0*)?$/.test(param));
    return (coding === 'gzip' || coding === 'x-gzip' || coding === '*') && !refused;
  });
}

/**
 * The logs in the c2sp.org/tlog-tiles layout under `/.tlog/<name>/`, their verifier keys at
 * `/.tlog/keys`, and consistency proofs between two sizes at `/v1/log/<name>/consistency`.
 */
export function registerTlogRoutes(
  root: FastifyInstance,
  logs: TransparencyLog[],
  /** The checkpoint as served: the signed note with the witnesses' cosignatures of it added. */
  served: (log: string, checkpoint: string) => Promise<string> = async (_log, checkpoint) => checkpoint,
): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['transparency log'];

  app.get('/.tlog/keys', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: "The logs' verifier keys, one per line (signed-note format); retired keys stay listed",
      response: { 200: bodyOf('text/plain', 'Verifier keys, one per line'), ...errorResponses },
    },
    handler: async (_request, reply) => {
      // A key given as LOG_SIGNING_KEY signs every log: listed once.
      const keys = [...new Set((await Promise.all(logs.map((log) => log.verifierKeys()))).flat())];
      return reply
        .type(TEXT)
        .header('cache-control', SHORT)
        .send(keys.map((key) => `${key}\n`).join(''));
    },
  });

  for (const log of logs) {
    app.get(`/.tlog/${log.name}/checkpoint`, {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: `The ${log.name} log's latest signed checkpoint (c2sp.org/tlog-checkpoint), with the cosignatures its witnesses gave it`,
        response: { 200: bodyOf('text/plain', 'The signed checkpoint (a signed note)'), ...errorResponses },
      },
      handler: async (_request, reply) =>
        reply
          .type(TEXT)
          .header('cache-control', 'no-cache')
          .send(await served(log.name, (await log.checkpoint()).checkpoint)),
    });

    app.get(`/.tlog/${log.name}/tile/*`, {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: `A hash tile or entry bundle of the ${log.name} log (c2sp.org/tlog-tiles)`,
        params: TilePath,
        response: {
          200: bodyOf(
            BYTES,
            'The tile or entry bundle; an entry bundle is gzip-compressed for a client whose Accept-Encoding takes gzip',
            Type.String({ format: 'binary' }),
          ),
          ...errorResponses,
        },
      },
      handler: async (request, reply: FastifyReply) => {
        const address = parseTilePath(request.params['*']);
        if (!address) throw notFound('No such tile: tiles are <L>/<N>[.p/<W>] or entries/<N>[.p/<W>]');
        const bytes =
          address.level === 'entries' ? await log.entryBundle(address.index, address.width) : await log.tile(address.level, address.index, address.width);
        if (!bytes) throw notFound('The log has no such tile yet');
        reply.type(BYTES).header('cache-control', address.width === 256 ? IMMUTABLE : SHORT);
        // Entry bundles are text-like and compress well (tlog-tiles: SHOULD, for a client that takes gzip); hash tiles do not.
        if (address.level !== 'entries') return reply.send(bytes);
        reply.header('vary', 'accept-encoding');
        return acceptsGzip(request.headers['accept-encoding']) ? reply.header('content-encoding', 'gzip').send(await gzipped(bytes)) : reply.send(bytes);
      },
    });

    app.get(`/v1/log/${log.name}/consistency`, {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: `A consistency proof between two sizes of the ${log.name} log`,
        querystring: ConsistencyQuery,
        response: { 200: ConsistencyProof, ...errorResponses },
      },
      handler: async (request) => {
        const { from, to } = request.query;
        const { size } = await log.checkpoint();
        if (from > to) throw badRequest('from must not be larger than to', [{ path: '/querystring/from', message: 'must be at most to' }]);
        if (to > size) throw badRequest(`to is beyond the log's size (${size})`, [{ path: '/querystring/to', message: `must be at most ${size}` }]);
        const proof = await log.consistencyProof(from, to);
        return { data: { proof: proof.map((hash) => hash.toString('base64')) } };
      },
    });
  }
}
