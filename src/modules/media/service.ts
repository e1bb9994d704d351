import type { Principal } from '../../lib/principal.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { AppError, badRequest, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { sniffImageType, type ImageType } from './image-type.ts';
import type { MediaStore, MediaSummary } from './store.ts';

/** The largest image one upload may carry. */
export const MEDIA_MAX_BYTES = 5 * 1024 * 1024;

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

export function createMediaService({ store, clock, publicUrl, quotaBytes }: { store: MediaStore; clock: Clock; publicUrl: string; quotaBytes: number }) {
  const view = (row: MediaSummary) => ({
    id: row.id,
    url: `${publicUrl}/media/${row.id}`,
    contentType: row.content_type as ImageType,
    bytes: row.bytes,
    createdAt: row.created_at,
  });

  /** Someone else's upload is 404, exactly as one that does not exist. */
  async function ownUpload(principal: Principal, id: string) {
    const row = await store.find(id);
    if (!row || row.owner_id !== principal.accountId) throw notFound('Media not found');
    return row;
  }

  return {
    async upload(principal: Principal, body: Buffer | undefined) {
      if (!body || body.length === 0) throw badRequest('Send the image bytes as the request body', [{ path: '/body', message: 'is empty' }]);
      if (body.length > MEDIA_MAX_BYTES) throw tooLarge();
      const contentType = sniffImageType(body);
      if (!contentType) {
        throw badRequest('Only PNG, JPEG, GIF and WebP images are accepted (the type is read from the bytes; SVG is never accepted)', [
          { path: '/body', message: 'is not a complete PNG, JPEG, GIF or WebP image' },
        ]);
      }
      // Checked before each upload: uploads running at the same moment can each pass it once.
      const used = await store.usedBytes(principal.accountId);
      if (used + body.length > quotaBytes) {
        throw new AppError(
          'CONFLICT',
          `This upload would exceed your storage quota of ${megabytes(quotaBytes)} (${megabytes(used)} used); delete some uploads first`,
          [{ path: '/body', message: 'exceeds the storage quota' }],
        );
      }
      const row = { id: newId(), owner_id: principal.accountId, content_type: contentType, bytes: body.length, data: body, created_at: isoNow(clock) };
      await store.insert(row);
      return view(row);
    },

    async remove(principal: Principal, id: string) {
      await ownUpload(principal, id);
      await store.remove(id);
      return { id, deleted: true as const };
    },

    async list(principal: Principal, limit: number, offset: number) {
      const [rows, total] = await Promise.all([store.list(principal.accountId, limit, offset), store.count(principal.accountId)]);
      return { data: rows.map(view), pagination: { limit, offset, total, hasMore: offset + rows.length < total } };
    },

    /** The bytes behind a media URL, for anyone who has it. */
    async content(id: string) {
      const row = await store.content(id);
      if (!row) throw notFound('Media not found');
      return { contentType: row.content_type, data: row.data };
    },
  };
}

export const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `An image may be at most ${megabytes(MEDIA_MAX_BYTES)}`);

export type MediaService = ReturnType<typeof createMediaService>;
