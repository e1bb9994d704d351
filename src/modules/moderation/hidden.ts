import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * The condition, for a query of another module that reads `moderation_states` (its
 * ModerationStatesReadModel), that the post or comment whose id is in `idColumn` (e.g. `p.id`) is
 * not hidden by moderators.
 */
export const notHiddenByModerators = (subjectType: 'post' | 'comment', idColumn: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`not exists (select 1 from moderation_states as hidden where hidden.subject_id = ${sql.ref(idColumn)} and hidden.subject_type = ${subjectType} and hidden.state = ${'hidden'})`;
