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
}

export interface MediaTables {
  media: MediaTable;
}
