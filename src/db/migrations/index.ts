/**
 * One ordered list of migrations for both engines. A migration receives the dialect so the few
 * statements that differ (full-text search, partial indexes) can be written per engine, right
 * next to the portable ones. Kysely's Migrator records what ran in `kysely_migration`.
 */
import type { Migration as KyselyMigration, MigrationProvider } from 'kysely';
import type { Migration } from '../migration.ts';
import type { DialectName } from '../dialect.ts';
import { identity } from './0001_identity.ts';
import { registry } from './0002_registry.ts';
import { receipts } from './0003_receipts.ts';
import { social } from './0004_social.ts';
import { tasks } from './0005_tasks.ts';
import { discovery } from './0006_discovery.ts';
import { payments } from './0007_payments.ts';
import { keyProof } from './0008_key_proof.ts';
import { sentenceVectors } from './0009_sentence_vectors.ts';
import { receiptKindInSubjectIndexes } from './0010_receipt_kind_in_subject_indexes.ts';
import { trustEvidenceSums } from './0011_trust_evidence_sums.ts';
import { receiptSumsByWriters } from './0012_receipt_sums_by_writers.ts';
import { sweepWatermarkPosition } from './0013_sweep_watermark_position.ts';
import { recentChallenges } from './0014_recent_challenges.ts';
import { agentNameLookalikes } from './0015_agent_name_lookalikes.ts';
import { agentManifest } from './0016_agent_manifest.ts';
import { media } from './0017_media.ts';
import { accountEvents } from './0018_account_events.ts';
import { a2aDelivery } from './0019_a2a_delivery.ts';
import { agentSearchInRegistry } from './0020_agent_search_in_registry.ts';
import { taskStatusEvents } from './0021_task_status_events.ts';
import { mediaPerson } from './0022_media_person.ts';
import { challengeAccount } from './0022b_challenge_account.ts';
import { agentLastPoll } from './0023_agent_last_poll.ts';
import { transparencyLog } from './0029_transparency_log.ts';
import { agentFeed } from './0030_agent_feed.ts';
import { agentExamples } from './0031_agent_examples.ts';
import { liveSocial } from './0032_live_social.ts';
import { accountSigningKeys } from './0033_account_signing_keys.ts';
import { accountDeletion } from './0035_account_deletion.ts';
import { discoveryWorkEvidence } from './0034_discovery_work_evidence.ts';
import { backgroundPasses } from './0036_background_passes.ts';
import { receiptLogIndexPartial } from './0037_receipt_log_index_partial.ts';
import { webhookListeners } from './0038_webhook_listeners.ts';
import { registryLog } from './0039_registry_log.ts';
import { moderation } from './0040_moderation.ts';
import { agentListing } from './0041_agent_listing.ts';
import { domainVerification } from './0042_domain_verification.ts';
import { witness } from './0043_witness.ts';
import { taskEventsSignalAfterCommit } from './0045_task_events_signal_after_commit.ts';
import { accountApproval } from './0046_account_approval.ts';
import { pollLease } from './0047_poll_lease.ts';
import { cardSignature } from './0048_card_signature.ts';
import { agentHealth } from './0049_agent_health.ts';
import { commentThreads } from './0050_comment_threads.ts';
import { postPictures } from './0051_post_pictures.ts';
import { bookmarksMutedWords } from './0052_bookmarks_muted_words.ts';
import { topicFollows } from './0053_topic_follows.ts';

const ordered: [string, Migration][] = [
  ['0001_identity', identity],
  ['0002_registry', registry],
  ['0003_receipts', receipts],
  ['0004_social', social],
  ['0005_tasks', tasks],
  ['0006_discovery', discovery],
  ['0007_payments', payments],
  ['0008_key_proof', keyProof],
  ['0009_sentence_vectors', sentenceVectors],
  ['0010_receipt_kind_in_subject_indexes', receiptKindInSubjectIndexes],
  ['0011_trust_evidence_sums', trustEvidenceSums],
  ['0012_receipt_sums_by_writers', receiptSumsByWriters],
  ['0013_sweep_watermark_position', sweepWatermarkPosition],
  ['0014_recent_challenges', recentChallenges],
  ['0015_agent_name_lookalikes', agentNameLookalikes],
  ['0016_agent_manifest', agentManifest],
  ['0017_media', media],
  ['0018_account_events', accountEvents],
  ['0019_a2a_delivery', a2aDelivery],
  ['0020_agent_search_in_registry', agentSearchInRegistry],
  ['0021_task_status_events', taskStatusEvents],
  ['0022_media_person', mediaPerson],
  ['0022b_challenge_account', challengeAccount],
  ['0023_agent_last_poll', agentLastPoll],
  ['0029_transparency_log', transparencyLog],
  ['0030_agent_feed', agentFeed],
  ['0031_agent_examples', agentExamples],
  ['0032_live_social', liveSocial],
  ['0033_account_signing_keys', accountSigningKeys],
  ['0034_discovery_work_evidence', discoveryWorkEvidence],
  ['0035_account_deletion', accountDeletion],
  ['0036_background_passes', backgroundPasses],
  ['0037_receipt_log_index_partial', receiptLogIndexPartial],
  ['0038_webhook_listeners', webhookListeners],
  ['0039_registry_log', registryLog],
  ['0040_moderation', moderation],
  ['0041_agent_listing', agentListing],
  ['0042_domain_verification', domainVerification],
  ['0043_witness', witness],
  ['0045_task_events_signal_after_commit', taskEventsSignalAfterCommit],
  ['0046_account_approval', accountApproval],
  ['0047_poll_lease', pollLease],
  ['0048_card_signature', cardSignature],
  ['0049_agent_health', agentHealth],
  ['0050_comment_threads', commentThreads],
  ['0051_post_pictures', postPictures],
  ['0052_bookmarks_muted_words', bookmarksMutedWords],
  ['0053_topic_follows', topicFollows],
];

/** Every migration this code knows, in order; the last is the schema version it expects. */
export const migrationNames: readonly string[] = ordered.map(([name]) => name);
export const latestMigration = migrationNames.at(-1)!;

export function migrationProvider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations() {
      const result: Record<string, KyselyMigration> = {};
      for (const [name, migration] of ordered) result[name] = { up: (db) => migration.up(db, dialect) };
      return result;
    },
  };
}
