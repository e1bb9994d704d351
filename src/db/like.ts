import { sql, type RawBuilder } from 'kysely';

/**
 * Case-insensitive substring search that means the same on both engines: lower() on both sides
 * (PostgreSQL's LIKE is case-sensitive) and an explicit escape character (SQLite has none by
 * default), so `%` and `_` typed by a user are plain characters.
 */
export const containsPattern = (query: string): string => `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `lower(column) like pattern`, with the escape character containsPattern() uses. */
export const lowerLike = (column: string, pattern: string): RawBuilder<boolean> => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
