import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses, listOf } from '../../http/schemas.ts';
import { badRequest } from '../../lib/errors.ts';
import { parseStrictJson, StrictJsonError } from '../../lib/strict-json.ts';
import { Chain, ChainParams, ReceiptAck, ReceiptEnvelope, ReceiptQuery, StoredReceipt, TrustQuery, TrustView } from './schemas.ts';
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

  app.get('/v1/trust', {
    config: { auth: 'none' },
    schema: { tags, summary: 'Trust of one key, per task class', querystring: TrustQuery, response: { 200: TrustView, ...errorResponses } },
    handler: async (request) => ({ data: await receipts.trustOf(request.query.pubkey) }),
  });
}
