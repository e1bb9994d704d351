/** The pictures of posts and comments, read in one query per page (uploads are the media module's; it attaches and releases them). */
import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import { attachedMediaView, type AttachedMedia, type AttachedMediaReadModel } from '../media/index.ts';

export type PostMedia = AttachedMedia;
/** The URL anyone reads an upload at. */
export type MediaUrl = (id: string) => string;

/** The pictures of each of these posts and comments that has some, in their order. */
export async function attachedMediaOf(database: Db, subjectIds: string[], mediaUrl: MediaUrl): Promise<Map<string, PostMedia[]>> {
  const bySubject = new Map<string, PostMedia[]>();
  if (subjectIds.length === 0) return bySubject;
  const rows = await ownTables<AttachedMediaReadModel>(database)
    .selectFrom('media')
    .select(['id', 'content_type', 'width', 'height', 'attached_to', 'alt'])
    .where('attached_to', 'in', [...new Set(subjectIds)])
    .orderBy('attached_to')
    .orderBy('attached_position')
    .execute();
  for (const row of rows) {
    const list = bySubject.get(row.attached_to!) ?? [];
    list.push(attachedMediaView(row, mediaUrl(row.id), row.alt ?? ''));
    bySubject.set(row.attached_to!, list);
  }
  return bySubject;
}
