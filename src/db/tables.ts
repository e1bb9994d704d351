/**
 * How a module's store sees the database: only the tables its module owns, plus read-only views of
 * tables another module exports as a read model (for joins that must stay one query).
 */
import type { ColumnType, Kysely, Selectable } from 'kysely';
import type { Database } from './schema.ts';

/** A table another module may read (select, join, filter): its columns take no value in an update (the type refuses one). */
export type ReadOnlyTable<T> = { [K in keyof Selectable<T>]: ColumnType<Selectable<T>[K], never, never> };

/**
 * The same connection or transaction, typed with the tables `T` alone. `T` must be part of the
 * database (a module's own tables and the read models it imports).
 */
export function ownTables<T>(db: Kysely<Database>): keyof T extends keyof Database ? Kysely<T> : never {
  return db as unknown as keyof T extends keyof Database ? Kysely<T> : never;
}
