/**
 * One ordered list of migrations for both engines. A migration receives the dialect so the few
 * statements that differ (full-text search, partial indexes) can be written per engine, right
 * next to the portable ones. Kysely's Migrator records what ran in `kysely_migration`.
 */
import type { Migration as KyselyMigration, MigrationProvider } from 'kysely';
import type { Migration } from '../migration.ts';
import type { DialectName } from '../dialect.ts';

/**
 * Each migration's module is loaded when it is to run: a node starting on a database that is up to
 * date loads none of them (48 modules, 135 kB of source, compiled at every start for nothing).
 */
const ordered: [string, () => Promise<Migration>][] = [
  ['0001_identity', async () => (await import('./0001_identity.ts')).identity],
  ['0002_registry', async () => (await import('./0002_registry.ts')).registry],
  ['0003_receipts', async () => (await import('./0003_receipts.ts')).receipts],
  ['0004_social', async () => (await import('./0004_social.ts')).social],
  ['0005_tasks', async () => (await import('./0005_tasks.ts')).tasks],
  ['0006_discovery', async () => (await import('./0006_discovery.ts')).discovery],
  ['0007_payments', async () => (await import('./0007_payments.ts')).payments],
  ['0008_key_proof', async () => (await import('./0008_key_proof.ts')).keyProof],
  ['0009_sentence_vectors', async () => (await import('./0009_sentence_vectors.ts')).sentenceVectors],
  ['0010_receipt_kind_in_subject_indexes', async () => (await import('./0010_receipt_kind_in_subject_indexes.ts')).receiptKindInSubjectIndexes],
  ['0011_trust_evidence_sums', async () => (await import('./0011_trust_evidence_sums.ts')).trustEvidenceSums],
  ['0012_receipt_sums_by_writers', async () => (await import('./0012_receipt_sums_by_writers.ts')).receiptSumsByWriters],
  ['0013_sweep_watermark_position', async () => (await import('./0013_sweep_watermark_position.ts')).sweepWatermarkPosition],
  ['0014_recent_challenges', async () => (await import('./0014_recent_challenges.ts')).recentChallenges],
  ['0015_agent_name_lookalikes', async () => (await import('./0015_agent_name_lookalikes.ts')).agentNameLookalikes],
  ['0016_agent_manifest', async () => (await import('./0016_agent_manifest.ts')).agentManifest],
  ['0017_media', async () => (await import('./0017_media.ts')).media],
  ['0018_account_events', async () => (await import('./0018_account_events.ts')).accountEvents],
  ['0019_a2a_delivery', async () => (await import('./0019_a2a_delivery.ts')).a2aDelivery],
  ['0020_agent_search_in_registry', async () => (await import('./0020_agent_search_in_registry.ts')).agentSearchInRegistry],
  ['0021_task_status_events', async () => (await import('./0021_task_status_events.ts')).taskStatusEvents],
  ['0022_media_person', async () => (await import('./0022_media_person.ts')).mediaPerson],
  ['0022b_challenge_account', async () => (await import('./0022b_challenge_account.ts')).challengeAccount],
  ['0023_agent_last_poll', async () => (await import('./0023_agent_last_poll.ts')).agentLastPoll],
  ['0029_transparency_log', async () => (await import('./0029_transparency_log.ts')).transparencyLog],
  ['0030_agent_feed', async () => (await import('./0030_agent_feed.ts')).agentFeed],
  ['0031_agent_examples', async () => (await import('./0031_agent_examples.ts')).agentExamples],
  ['0032_live_social', async () => (await import('./0032_live_social.ts')).liveSocial],
  ['0033_account_signing_keys', async () => (await import('./0033_account_signing_keys.ts')).accountSigningKeys],
  ['0034_discovery_work_evidence', async () => (await import('./0034_discovery_work_evidence.ts')).discoveryWorkEvidence],
  ['0035_account_deletion', async () => (await import('./0035_account_deletion.ts')).accountDeletion],
  ['0036_background_passes', async () => (await import('./0036_background_passes.ts')).backgroundPasses],
  ['0037_receipt_log_index_partial', async () => (await import('./0037_receipt_log_index_partial.ts')).receiptLogIndexPartial],
  ['0038_webhook_listeners', async () => (await import('./0038_webhook_listeners.ts')).webhookListeners],
  ['0039_registry_log', async () => (await import('./0039_registry_log.ts')).registryLog],
  ['0040_moderation', async () => (await import('./0040_moderation.ts')).moderation],
  ['0041_agent_listing', async () => (await import('./0041_agent_listing.ts')).agentListing],
  ['0042_domain_verification', async () => (await import('./0042_domain_verification.ts')).domainVerification],
  ['0043_witness', async () => (await import('./0043_witness.ts')).witness],
  ['0045_task_events_signal_after_commit', async () => (await import('./0045_task_events_signal_after_commit.ts')).taskEventsSignalAfterCommit],
  ['0046_account_approval', async () => (await import('./0046_account_approval.ts')).accountApproval],
  ['0047_poll_lease', async () => (await import('./0047_poll_lease.ts')).pollLease],
  ['0048_card_signature', async () => (await import('./0048_card_signature.ts')).cardSignature],
  ['0049_agent_health', async () => (await import('./0049_agent_health.ts')).agentHealth],
  ['0050_comment_threads', async () => (await import('./0050_comment_threads.ts')).commentThreads],
  ['0051_post_pictures', async () => (await import('./0051_post_pictures.ts')).postPictures],
  ['0052_bookmarks_muted_words', async () => (await import('./0052_bookmarks_muted_words.ts')).bookmarksMutedWords],
  ['0053_topic_follows', async () => (await import('./0053_topic_follows.ts')).topicFollows],
];

/** Every migration this code knows, in order; the last is the schema version it expects. */
export const migrationNames: readonly string[] = ordered.map(([name]) => name);
export const latestMigration = migrationNames.at(-1)!;

export function migrationProvider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations() {
      const result: Record<string, KyselyMigration> = {};
      for (const [name, load] of ordered) result[name] = { up: async (db) => (await load()).up(db, dialect) };
      return result;
    },
  };
}
