/**
 * The tables the media module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
export interface MediaTable {
  id: string;
  owner_id: string;
  /** Sniffed from the bytes: image/png, image/jpeg, image/gif or image/webp. */
  content_type: string;
  bytes: number;
  data: Buffer;
  created_at: string;
}

export interface MediaTables {
  media: MediaTable;
}
