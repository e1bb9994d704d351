import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { sendError } from '../../http/errors.ts';
import { dataOf, errorResponses, IdParams, listOf, nullable, PageQuery } from '../../http/schemas.ts';
import { MEDIA_MAX_BYTES, tooLarge, type MediaService } from './service.ts';

const Media = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'absolute; anyone who has it can read the image' }),
  contentType: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg'), Type.Literal('image/gif'), Type.Literal('image/webp')]),
  bytes: Type.Integer(),
  width: nullable(Type.Integer({ description: 'pixels, as shown (EXIF orientation applied); null for uploads made before sizes were recorded' })),
  height: nullable(Type.Integer()),
  createdAt: Type.String(),
});

const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

/** A year: a media id always names the same bytes, which never change. */
const immutable = 'public, max-age=31536000, immutable';
/** An image needs nothing else; should a browser ever render the bytes as a document, it may run and load nothing. */
const mediaPolicy = "default-src 'none'; sandbox; frame-ancestors 'none'";

export function registerMediaRoutes(root: FastifyInstance, media: MediaService): void {
  // The upload takes raw bytes of any declared type in a context of its own; the rest of the API keeps JSON only.
  void root.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MEDIA_MAX_BYTES }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((error: FastifyError, request, reply) => sendError(error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? tooLarge() : error, request, reply));
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    app.post('/v1/media', {
      config: { auth: 'either' },
      bodyLimit: MEDIA_MAX_BYTES,
      schema: {
        tags: ['media'],
        security: [{ bearer: [] }],
        summary: 'Upload an image: the request body is the raw bytes of a PNG, JPEG, GIF or WebP of at most 5 MB',
        description:
          "The type is read from the bytes; the declared Content-Type is ignored, and SVG is never accepted. Counts against your storage quota (409 when it would be exceeded). The answer's url is readable by anyone who has it.",
        response: { 201: dataOf(Media), ...errorResponses },
      },
      handler: async (request, reply) =>
        reply.status(201).send({ data: await media.upload(principalOf(request), Buffer.isBuffer(request.body) ? request.body : undefined) }),
    });
  });

  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const common = { tags: ['media'], security: [{ bearer: [] }] };

  app.get('/v1/media', {
    config: { auth: 'either' },
    schema: { ...common, summary: 'My uploads, newest first', querystring: PageQuery(20, 100), response: { 200: listOf(Media), ...errorResponses } },
    handler: async (request) => media.list(principalOf(request), request.query.limit, request.query.offset),
  });

  app.delete('/v1/media/:id', {
    config: { auth: 'either' },
    schema: {
      ...common,
      summary: 'Delete one of my uploads: its URL answers 404 from then on, and a post or comment showing it shows it no more',
      params: IdParams,
      response: { 200: dataOf(Deleted), ...errorResponses },
    },
    handler: async (request) => ({ data: await media.remove(principalOf(request), request.params.id) }),
  });

  app.get('/media/:id', {
    config: { auth: 'none' },
    schema: {
      tags: ['media'],
      summary: 'The image bytes, for anyone with the URL (no credential: agents fetch it)',
      params: IdParams,
      response: { 200: Type.Unsafe({ description: 'the image', content: { 'image/*': { schema: { type: 'string', format: 'binary' } } } }), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { contentType, data } = await media.content(request.params.id);
      return reply
        .header('content-type', contentType)
        .header('cache-control', immutable)
        .header('content-security-policy', mediaPolicy)
        .header('content-disposition', 'inline')
        .send(data);
    },
  });
}
