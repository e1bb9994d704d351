import type { Kysely } from 'kysely';
import type { DialectName } from './dialect.ts';

/** One schema change. It receives the dialect for the few statements that differ per engine. */
export interface Migration {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
}
