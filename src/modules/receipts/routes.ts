import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { bodyOf, dataOf, errorResponses, IdParams, listOf } from '../../http/schemas.ts';
import { badRequest } from '../../lib/errors.ts';
import { parseStrictJson, StrictJsonError } from '../../lib/strict-json.ts';
import {
  Chain,
  ChainParams,
  ProofParams,
  ReceiptAck,
  ReceiptEnvelope,
  ReceiptQuery,
  SigningKey,
  SigningKeyBody,
  StoredReceipt,
  TrustQuery,
  TrustView,
} from './schemas.ts';
import type { ReceiptsService } from './service.ts';

export function registerReceiptsRoutes(root: FastifyInstance, receipts: ReceiptsService): void {
  const tags = ['trust receipts'];

  // Signed bodies get a parser of their own: JSON.parse would quietly accept duplicate keys and
  // round big numbers, so what is verified could differ from what the issuer meant.
  void root.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseStrictJson(body as string));
      } catch (error) {
        if (error instanceof StrictJsonError) done(badRequest(`Body is not acceptable JSON: ${error.message}`), undefined);
        else done(error as Error, undefined);
      }
    });

    scope.withTypeProvider<TypeBoxTypeProvider>().post('/v1/trust-receipts', {
      config: { auth: 'none' },
      bodyLimit: 64 * 1024,
      schema: {
        tags,
        summary: 'Submit a signed trust receipt (201 stored, 200 already stored with the same content)',
        body: ReceiptEnvelope,
        response: { 200: ReceiptAck, 201: ReceiptAck, ...errorResponses },
      },
      handler: async (request, reply) => {
        const { status, ...body } = await receipts.ingest(request.body as ReceiptEnvelope);
        return reply.status(status).send(body);
      },
    });
  });

  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/trust-receipts', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'Receipts about a key or of one flow, newest first',
      querystring: ReceiptQuery,
      response: { 200: listOf(StoredReceipt), ...errorResponses },
    },
    handler: async (request) => receipts.list(request.query),
  });

  app.get('/v1/trust-receipts/chain/:correlationId', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'The earliest verified offer, decision and outcome of one flow',
      params: ChainParams,
      response: { 200: Chain, ...errorResponses },
    },
    handler: async (request) => ({ data: await receipts.chain(request.params.correlationId) }),
  });

  app.get('/v1/trust-receipts/:id/proof', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'Proof that a verified receipt is in the receipt log, as text in the c2sp.org/tlog-proof@v1 format (202 while it waits to be logged)',
      params: ProofParams,
      response: { 200: bodyOf('text/plain', 'The proof (c2sp.org/tlog-proof@v1)'), 202: Type.Object({ message: Type.String() }), ...errorResponses },
    },
    handler: async (request, reply) => {
      const answer = await receipts.proof(request.params.id);
      if ('proof' in answer) return reply.type('text/plain; charset=utf-8').header('cache-control', 'no-cache').send(answer.proof);
      return reply
        .status(202)
        .header('retry-after', String(answer.retryAfterSeconds))
        .send({ message: 'The receipt is waiting to be logged; ask again after Retry-After seconds' });
    },
  });

  app.get('/v1/trust', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'Trust of one key, per task class; with explain=true, the evidence that counted and what did not, and why',
      querystring: TrustQuery,
      response: { 200: TrustView, ...errorResponses },
    },
    handler: async (request) => {
      const { pubkey, taskClass, explain } = request.query;
      const trust = await receipts.trustOf(pubkey, taskClass);
      if (!explain) return { data: trust };
      const { prior, classes } = await receipts.explain(pubkey, taskClass);
      return { data: { ...trust, explanation: { prior, classes } } };
    },
  });

  app.get('/v1/account/signing-keys', {
    config: { auth: 'either' },
    schema: {
      tags,
      summary: "The keys this account signs trust receipts with (a requester's outcome receipts about its tasks)",
      response: { 200: dataOf(Type.Array(SigningKey)), ...errorResponses },
    },
    handler: async (request) => ({ data: await receipts.signingKeys(principalOf(request).accountId) }),
  });

  app.post('/v1/account/signing-keys', {
    config: { auth: 'either' },
    schema: {
      tags,
      summary: 'Register a key this account signs trust receipts with, proven by its signature over a statement naming the account',
      body: SigningKeyBody,
      response: { 200: dataOf(SigningKey), 201: dataOf(SigningKey), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { key, created } = await receipts.addSigningKey(principalOf(request), request.body.pubkey, request.body.signature);
      return reply.status(created ? 201 : 200).send({ data: key });
    },
  });

  app.delete('/v1/account/signing-keys/:id', {
    config: { auth: 'either' },
    schema: {
      tags,
      summary: 'Remove a signing key of this account',
      params: IdParams,
      response: { 200: dataOf(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errorResponses },
    },
    handler: async (request) => {
      await receipts.removeSigningKey(principalOf(request), request.params.id);
      return { data: { id: request.params.id, deleted: true } };
    },
  });
}
