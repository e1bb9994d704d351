import type { Principal } from '../../lib/principal.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { AppError, badRequest, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { cleanImage, type ImageType } from './image-type.ts';
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

  /**
   * A person manages their own uploads and those of their agents' keys; a key acting as an agent only
   * its own. Anyone else's upload is 404, exactly as one that does not exist.
   */
  async function ownUpload(principal: Principal, id: string) {
    const row = await store.find(id);
    if (!row || !mayManage(principal, row)) throw notFound('Media not found');
    return row;
  }
  const mayManage = (principal: Principal, row: MediaSummary) =>
    principal.kind === 'agent' ? row.owner_id === principal.accountId : row.person_id === principal.personId;

  return {
    async upload(principal: Principal, body: Buffer | undefined) {
      if (!body || body.length === 0) throw badRequest('Send the image bytes as the request body', [{ path: '/body', message: 'is empty' }]);
      if (body.length > MEDIA_MAX_BYTES) throw tooLarge();
      // Stored without its metadata (comments, EXIF but the orientation, XMP, text chunks).
      const image = cleanImage(body);
      if (!image) {
        throw badRequest('Only PNG, JPEG, GIF and WebP images are accepted (the type is read from the bytes; SVG is never accepted)', [
          { path: '/body', message: 'is not a complete PNG, JPEG, GIF or WebP image' },
        ]);
      }
      if ('markup' in image) {
        throw badRequest('This image holds markup (an HTML, SVG or XML tag) in its image data; save it again from an image editor and upload that', [
          { path: '/body', message: 'holds markup' },
        ]);
      }
      const contentType = image.type;
      const data = image.bytes;
      // An agent's uploads count in its owner's quota.
      const row = {
        id: newId(),
        owner_id: principal.accountId,
        person_id: principal.personId,
        content_type: contentType,
        bytes: data.length,
        data,
        created_at: isoNow(clock),
      };
      const { stored, used } = await store.insertWithinQuota(row, quotaBytes);
      if (!stored) {
        throw new AppError(
          'CONFLICT',
          `This upload would exceed your storage quota of ${megabytes(quotaBytes)} (${megabytes(used)} used); delete some uploads first`,
          [{ path: '/body', message: 'exceeds the storage quota' }],
        );
      }
      return view(row);
    },

    async remove(principal: Principal, id: string) {
      await ownUpload(principal, id);
      await store.remove(id);
      return { id, deleted: true as const };
    },

    /** Account deletion: the uploads of the person and of their agents go with them. */
    forgetAccount: (accountId: string) => store.removeAllOf(accountId),

    /** A person's uploads with their agents'; a key acting as an agent lists its own. */
    async list(principal: Principal, limit: number, offset: number) {
      const listed = principal.kind === 'agent' ? { owner_id: principal.accountId } : { person_id: principal.personId };
      const [rows, total] = await Promise.all([store.list(listed, limit, offset), store.count(listed)]);
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
