import type { Tx } from '../../db/database.ts';
import type { Principal } from '../../lib/principal.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { cleanImage, imageSize, type ImageType } from './image-type.ts';
import type { MediaStore, MediaSummary } from './store.ts';

/** The largest image one upload may carry. */
export const MEDIA_MAX_BYTES = 5 * 1024 * 1024;

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** The most pictures one post or comment shows. */
export const MAX_ATTACHED = 4;

/** A picture to show in a post or comment: one of the author's uploads and its description ('' for "no description"). */
export interface Attachment {
  id: string;
  alt: string;
}

/** A picture as a post or comment shows it. */
export interface AttachedMedia {
  id: string;
  url: string;
  width: number | null;
  height: number | null;
  alt: string;
  mimeType: ImageType;
}

/** A stored upload as a post or comment shows it, with its description there. */
export const attachedMediaView = (row: Pick<MediaSummary, 'id' | 'content_type' | 'width' | 'height'>, url: string, alt: string): AttachedMedia => ({
  id: row.id,
  url,
  width: row.width,
  height: row.height,
  alt,
  mimeType: row.content_type as ImageType,
});

export function createMediaService({
  store,
  storeIn,
  clock,
  publicUrl,
  quotaBytes,
}: {
  store: MediaStore;
  /** The store bound to a transaction of another module (attaching and releasing pictures with the post that shows them). */
  storeIn: (tx: Tx) => MediaStore;
  clock: Clock;
  publicUrl: string;
  quotaBytes: number;
}) {
  const urlOf = (id: string) => `${publicUrl}/media/${id}`;
  const view = (row: MediaSummary) => ({
    id: row.id,
    url: urlOf(row.id),
    contentType: row.content_type as ImageType,
    bytes: row.bytes,
    width: row.width,
    height: row.height,
    createdAt: row.created_at,
  });
  const notYours = (index: number) =>
    new AppError('UNPROCESSABLE', `media[${index}] is not one of your uploads: upload the image with POST /v1/media and send the id it answers`, [
      { path: `/body/media/${index}/id`, message: 'is not one of your uploads' },
    ]);
  const alreadyShown = (index: number) =>
    conflict(`media[${index}] is already shown in another post or comment; upload the image again to show it here too`, [
      { path: `/body/media/${index}/id`, message: 'is already attached' },
    ]);

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
      const size = imageSize(contentType, data);
      // An agent's uploads count in its owner's quota.
      const row = {
        id: newId(),
        owner_id: principal.accountId,
        person_id: principal.personId,
        content_type: contentType,
        bytes: data.length,
        data,
        created_at: isoNow(clock),
        width: size?.width ?? null,
        height: size?.height ?? null,
        attached_to: null,
        attached_position: null,
        alt: null,
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

    urlOf,

    /**
     * The pictures `items` name as a post or comment by `accountId` would show them, in that order.
     * Each must be an upload of that account (anyone else's is refused exactly as one that does not
     * exist) not yet shown anywhere, and named once.
     */
    async attachable(accountId: string, items: readonly Attachment[]): Promise<AttachedMedia[]> {
      const ids = items.map((item) => item.id.toLowerCase());
      const repeated = ids.findIndex((id, index) => ids.indexOf(id) !== index);
      if (repeated >= 0) throw badRequest(`media[${repeated}] repeats a picture`, [{ path: `/body/media/${repeated}/id`, message: 'repeats a picture' }]);
      const rows = new Map((await store.findMany(ids)).map((row) => [row.id, row]));
      return ids.map((id, index) => {
        const row = rows.get(id);
        if (!row || row.owner_id !== accountId) throw notYours(index);
        if (row.attached_to !== null) throw alreadyShown(index);
        return attachedMediaView(row, urlOf(id), items[index]!.alt);
      });
    },

    /** Attaches the checked pictures to the post or comment `subjectId`, in the transaction that writes it; refuses any attached meanwhile. */
    async attach(tx: Tx, accountId: string, subjectId: string, items: readonly Attachment[]): Promise<void> {
      const inTx = storeIn(tx);
      for (const [index, item] of items.entries()) {
        if (!(await inTx.attach(item.id.toLowerCase(), accountId, subjectId, index, item.alt))) throw alreadyShown(index);
      }
    },

    /** Deletes the pictures of these posts and comments, in the transaction that deletes them: their bytes leave their uploaders' quotas. */
    release: (tx: Tx, subjectIds: string[]) => storeIn(tx).releaseAttachedTo(subjectIds),

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
