import { PassThrough } from 'node:stream';
import { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { badRequest } from '../../lib/errors.ts';
import type { A2aFrontDoor } from './front-door.ts';

/** The JSON-RPC endpoint the service's agent card names. */
export const A2A_PATH = '/a2a';

type JsonRpcAnswer = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };

/**
 * A JSON-RPC 2.0 request object: `jsonrpc: "2.0"`, a method name, an id that is a string, a number
 * or null when given, and params that are structured when given. (Batches are not part of A2A.)
 */
function isJsonRpcRequest(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { jsonrpc, method, id, params } = body as Record<string, unknown>;
  return (
    jsonrpc === '2.0' &&
    typeof method === 'string' &&
    (id === undefined || id === null || typeof id === 'string' || typeof id === 'number') &&
    (params === undefined || (typeof params === 'object' && params !== null))
  );
}

const idOf = (body: unknown): string | number | null => {
  const id = (body as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

export function registerA2aRoutes(app: FastifyInstance, frontDoor: A2aFrontDoor, options: { heartbeatSeconds: number }): void {
  app.post(A2A_PATH, {
    // A credential as for /v1; a missing or bad one is a 401 whose body is also a JSON-RPC error (src/http/errors.ts).
    config: { auth: 'either' },
    schema: { hide: true },
    handler: async (request, reply) => {
      const clientGone = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) clientGone.abort();
      });
      // A 400 whose body is JSON-RPC's -32600 Invalid Request (src/http/errors.ts).
      if (!isJsonRpcRequest(request.body))
        throw badRequest('The body is not a JSON-RPC 2.0 request: an object with jsonrpc "2.0", a method and an id', [
          { path: '/body', message: 'is not a JSON-RPC request' },
        ]);
      const id = idOf(request.body);
      const version = request.headers['a2a-version'];
      let answer: JsonRpcAnswer | AsyncGenerator<JsonRpcAnswer, void, undefined>;
      try {
        const context = frontDoor.context(principalOf(request), clientGone.signal, typeof version === 'string' ? version : undefined, request.log);
        answer = await frontDoor.transport.handle(request.body as Record<string, unknown>, context);
      } catch (error) {
        return { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
      }
      if (!(Symbol.asyncIterator in answer)) return answer;

      // A stream: an error before its first event is a plain JSON-RPC answer, as for any other method.
      let first: IteratorResult<JsonRpcAnswer, void>;
      try {
        first = await answer.next();
      } catch (error) {
        return { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
      }
      const stream = answer;
      const body = new PassThrough();
      const frame = (event: unknown) => body.write(`data: ${JSON.stringify(event)}\n\n`);
      if (!first.done) frame(first.value);
      // Proxies and clients that give up on a silent connection see a comment now and then.
      const heartbeat = setInterval(() => body.write(': keep-alive\n\n'), options.heartbeatSeconds * 1000);
      heartbeat.unref();
      void (async () => {
        try {
          if (!first.done) for await (const event of { [Symbol.asyncIterator]: () => stream }) frame(event);
        } catch (error) {
          body.write(`event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) })}\n\n`);
        } finally {
          clearInterval(heartbeat);
          body.end();
        }
      })();
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no')
        .send(body);
    },
  });
}
