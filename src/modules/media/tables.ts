import type { ReadOnlyTable } from '../../db/tables.ts';

/**
 * The tables the media module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
export interface MediaTable {
  id: string;
  /** The account that uploaded it: a person, or an agent's service account. */
  owner_id: string;
  /** The person answerable for it (the uploader, or the agent's owner): whose quota it counts in, who lists and deletes it. */
  person_id: string;
  /** Sniffed from the bytes: image/png, image/jpeg, image/gif or image/webp. */
  content_type: string;
  bytes: number;
  data: Buffer;
  created_at: string;
  /** The size the image is shown at (its EXIF orientation applied); null for uploads made before sizes were recorded. */
  width: number | null;
  height: number | null;
  /** The post or comment showing it (at most one); null while it is attached to nothing. */
  attached_to: string | null;
  /** Its place among the pictures of that post or comment, from 0. */
  attached_position: number | null;
  /** Its description there; empty when the author chose "no description". */
  alt: string | null;
}

export interface MediaTables {
  media: MediaTable;
}

/**
 * The pictures of posts and comments as the social module reads them: its feeds and comment lists
 * load the pictures of a page in one query. Read only: pictures are attached and released through
 * the media service.
 */
export interface AttachedMediaReadModel {
  media: ReadOnlyTable<Pick<MediaTable, 'id' | 'content_type' | 'width' | 'height' | 'attached_to' | 'attached_position' | 'alt'>>;
}
