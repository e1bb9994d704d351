import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Db, Tx } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { containsPattern, lowerLike } from '../../db/like.ts';
import { ownTables } from '../../db/tables.ts';
import type { InputSchema } from './input-schema.ts';
import { provenKeyOf } from './proven-key.ts';
import { verifiedDomainOf } from './identity.ts';
import type { VerifiedCardSignature } from './card-signature.ts';
import { changeEvents, deletedEvent, logAgentEvent, loggedColumns, queueRegistryEvents, registeredEvent, type LoggedAgent } from './lifecycle-log.ts';
import type { AgentDomainProofsTable, AgentListing, AgentsTable, ClaimChallengesTable, RegistryTables } from './tables.ts';

export type AgentRow = Selectable<AgentsTable>;
export type ChallengeRow = Selectable<ClaimChallengesTable>;
export type DomainProofRow = Selectable<AgentDomainProofsTable>;

const parseList = (json: string): string[] => JSON.parse(json) as string[];

/**
 * An agent as other modules take it: what tasks route, assign and deliver by, what payments names,
 * and what discovery indexes, filters and hands back to the registry's view and visibility rule.
 * Lists come parsed (once, here: discovery maps every agent at a node's start); visibility is the
 * registry's to judge before handing one out.
 */
export interface AgentRecord {
  id: string;
  name: string;
  slug: string;
  description: string;
  longDescription: string | null;
  endpoint: string | null;
  protocols: string[];
  categories: string[];
  capabilities: string[];
  tags: string[];
  examples: string[];
  /** The name of the MCP server.json it was registered from, if any. */
  mcpServerName: string | null;
  /** Listed, waiting for approval, rejected or delisted, with the reason and since when. */
  listing: { state: AgentListing; reason: string | null; since: string | null };
  /** The owner's account is limited: the agent stays out of discovery. */
  ownerLimited: boolean;
  docsUrl: string | null;
  manifestUrl: string | null;
  /** When a manifest last filled fields in, and which. */
  manifest: { importedAt: string; fields: string[] } | null;
  version: string;
  visibility: AgentsTable['visibility'];
  orgId: string | null;
  status: AgentsTable['status'];
  ownerId: string | null;
  twitterUrl: string | null;
  /** The schema as stored (JSON text), which the agent view shows. */
  inputSchemaText: string | null;
  /**
   * Parsed when first asked for: routing reads up to hundreds of candidates for a task and assigns
   * it to one, and a schema may be large.
   */
  inputSchema(): InputSchema | null;
  deliveryMode: AgentsTable['delivery_mode'];
  /** Signs webhook deliveries. */
  webhookSecret: string | null;
  authType: string;
  /** The A2A endpoint's credential, sealed as stored (SecretBox opens it with the agent's id). */
  authCredential: string | null;
  registrationPubkey: string | null;
  claimedAt: string | null;
  keyVerifiedAt: string | null;
  /** The key whose trust the agent carries (provenKeyOf). */
  provenKey: string | null;
  /** The endpoint host whose control is proven (verifiedDomainOf), and when it was first proven. */
  verifiedDomain: string | null;
  domainVerifiedAt: string | null;
  /** The verified signature of the A2A card it was registered or refreshed from. */
  cardSignature: VerifiedCardSignature | null;
  pricePerTaskCents: number;
  currency: string;
  lastSeenAt: string | null;
  lastPolledAt: string | null;
  /** The status and load of the last heartbeat. */
  reportedStatus: string | null;
  reportedLoad: number | null;
  createdAt: string;
  updatedAt: string;
}

export function agentRecordOf(row: AgentRow): AgentRecord {
  const schemaText = row.input_schema;
  let schema: InputSchema | null | undefined;
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    longDescription: row.long_description,
    endpoint: row.endpoint,
    protocols: parseList(row.protocols),
    categories: parseList(row.categories),
    capabilities: parseList(row.capabilities),
    tags: parseList(row.tags),
    examples: parseList(row.examples),
    mcpServerName: row.mcp_server_name,
    listing: { state: row.listing, reason: row.listing_reason, since: row.listing_since },
    ownerLimited: row.owner_limited === 1,
    docsUrl: row.docs_url,
    manifestUrl: row.manifest_url,
    manifest: row.manifest_imported_at ? { importedAt: row.manifest_imported_at, fields: parseList(row.manifest_fields ?? '[]') } : null,
    version: row.version,
    visibility: row.visibility,
    orgId: row.org_id,
    status: row.status,
    ownerId: row.owner_id,
    twitterUrl: row.twitter_url,
    inputSchemaText: schemaText,
    inputSchema() {
      if (schema === undefined) schema = schemaText === null ? null : (JSON.parse(schemaText) as InputSchema);
      return schema;
    },
    deliveryMode: row.delivery_mode,
    webhookSecret: row.webhook_secret,
    authType: row.auth_type,
    authCredential: row.auth_credential,
    registrationPubkey: row.registration_pubkey,
    claimedAt: row.claimed_at,
    keyVerifiedAt: row.key_verified_at,
    provenKey: provenKeyOf(row),
    verifiedDomain: verifiedDomainOf(row),
    domainVerifiedAt: verifiedDomainOf(row) === null ? null : row.domain_verified_at,
    cardSignature: row.card_signature === null ? null : (JSON.parse(row.card_signature) as VerifiedCardSignature),
    pricePerTaskCents: row.price_per_task_cents,
    currency: row.currency,
    lastSeenAt: row.last_seen_at,
    lastPolledAt: row.last_polled_at,
    reportedStatus: row.reported_status,
    reportedLoad: row.reported_load,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Records that the agent's registration key is proven. Only the first proof is kept: the key cannot
 * change, and leaving proven rows untouched keeps later signed heartbeats from firing discovery's
 * change trigger (migration 0008).
 */
const markKeyProven = (executor: Own, agentId: string, now: string) =>
  executor.updateTable('agents').set({ key_verified_at: now }).where('id', '=', agentId).where('key_verified_at', 'is', null).execute();

/** The registry's own tables, on a connection or in a transaction. */
type Own = Kysely<RegistryTables>;

/** Thrown inside a transaction to roll it back when the signed challenge is no longer valid. */
class ChallengeGone extends Error {}

export function createRegistryStore(database: Db, dialect: DialectName) {
  const db = ownTables<RegistryTables>(database);
  /**
   * Takes the agent's row lock (PostgreSQL; SQLite runs one write transaction at a time). Every
   * transaction that writes an agent's challenges takes it first, so they queue in one order and
   * cannot deadlock on each other's rows.
   */
  const lockAgent = (tx: Own, agentId: string) =>
    tx
      .selectFrom('agents')
      .select('id')
      .where('id', '=', agentId)
      .$if(dialect === 'postgres', (qb) => qb.forUpdate())
      .execute();

  /** Spends all of the agent's challenges; false (roll back) unless `nonce` was among the valid ones. */
  async function spendChallenges(tx: Own, agentId: string, nonce: string, now: string): Promise<boolean> {
    const spent = await tx.deleteFrom('claim_challenges').where('agent_id', '=', agentId).returning(['nonce', 'expires_at', 'replaced_at']).execute();
    return spent.some((row) => row.nonce === nonce && row.replaced_at === null && Date.parse(row.expires_at) > Date.parse(now));
  }

  /** Runs `work` in a transaction; 'challenge_gone' when it found the challenge spent or replaced (and rolled back). */
  async function withChallenge<T>(work: (tx: Own) => Promise<T>): Promise<T | 'challenge_gone'> {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (error instanceof ChallengeGone) return 'challenge_gone';
      throw error;
    }
  }

  /** The agent as the registry log sees it, its row locked for the rest of the transaction (PostgreSQL). */
  const loggedState = (tx: Own, agentId: string): Promise<LoggedAgent | undefined> =>
    tx
      .selectFrom('agents')
      .select(['id', 'name', 'slug', 'status', 'owner_id', 'registration_pubkey', 'endpoint', 'delivery_mode', 'visibility'])
      .where('id', '=', agentId)
      .$if(dialect === 'postgres', (qb) => qb.forUpdate())
      .executeTakeFirst();

  /** Queues the registry log events of the change the transaction made to the agent since `before`. */
  async function logChange(tx: Own, before: LoggedAgent | undefined, agentId: string, time: string): Promise<void> {
    const after = before && (await loggedState(tx, agentId));
    if (before && after) await queueRegistryEvents(tx, changeEvents(before, after, time));
  }

  const domainProofs = {
    find: (agentId: string) => db.selectFrom('agent_domain_proofs').selectAll().where('agent_id', '=', agentId).executeTakeFirst(),
    /** The agent's token for `domain`: the one issued before for that host, or `token`, replacing one issued for another host. */
    async issue(agentId: string, domain: string, token: string, now: string): Promise<DomainProofRow> {
      return db.transaction().execute(async (tx) => {
        await lockAgent(tx, agentId);
        const existing = await tx.selectFrom('agent_domain_proofs').selectAll().where('agent_id', '=', agentId).executeTakeFirst();
        if (existing?.domain === domain) return existing;
        const row = { agent_id: agentId, domain, token, created_at: now, checked_at: null, failing_since: null, last_failure: null };
        if (existing) await tx.updateTable('agent_domain_proofs').set(row).where('agent_id', '=', agentId).execute();
        else await tx.insertInto('agent_domain_proofs').values(row).execute();
        return row;
      });
    },
    /**
     * Records a passed check of `domain`: the agent carries it from now (unless its endpoint moved
     * meanwhile), and `domain_verified` is logged when it did not carry it already. True when newly verified.
     */
    async passed(agentId: string, domain: string, now: string): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        await tx
          .updateTable('agent_domain_proofs')
          .set({ checked_at: now, failing_since: null, last_failure: null })
          .where('agent_id', '=', agentId)
          .where('domain', '=', domain)
          .execute();
        const marked = await tx
          .updateTable('agents')
          .set({ verified_domain: domain, domain_verified_at: now, updated_at: now })
          .where('id', '=', agentId)
          .where((eb) => eb.or([eb('verified_domain', 'is', null), eb('verified_domain', '!=', domain)]))
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) === 0) return false;
        const agent = await loggedState(tx, agentId);
        if (agent) await logAgentEvent(tx as unknown as Kysely<unknown>, agent, 'domain_verified', { domain }, now);
        return true;
      });
    },
    /** Records a failed re-check; answers since when the re-checks have been failing. */
    async failed(agentId: string, reason: string, now: string): Promise<string> {
      const row = await db
        .updateTable('agent_domain_proofs')
        .set((eb) => ({ checked_at: now, failing_since: eb.fn.coalesce('failing_since', eb.val(now)), last_failure: reason }))
        .where('agent_id', '=', agentId)
        .returning('failing_since')
        .executeTakeFirst();
      return row?.failing_since ?? now;
    },
    /** Takes the mark of `domain` off the agent and logs `domain_lost` with why; false when it no longer carried it. */
    lose: (agentId: string, domain: string, reason: string, now: string): Promise<boolean> =>
      db.transaction().execute(async (tx) => {
        const cleared = await tx
          .updateTable('agents')
          .set({ verified_domain: null, domain_verified_at: null, updated_at: now })
          .where('id', '=', agentId)
          .where('verified_domain', '=', domain)
          .executeTakeFirst();
        if (Number(cleared.numUpdatedRows) === 0) return false;
        await tx.updateTable('agent_domain_proofs').set({ checked_at: null, failing_since: null }).where('agent_id', '=', agentId).execute();
        const agent = await loggedState(tx, agentId);
        if (agent) await logAgentEvent(tx as unknown as Kysely<unknown>, agent, 'domain_lost', { domain, reason }, now);
        return true;
      }),
    /** Verified agents whose last check is older than `checkedBefore`, oldest first. */
    due: (checkedBefore: string, limit: number) =>
      db
        .selectFrom('agent_domain_proofs as p')
        .innerJoin('agents as a', 'a.id', 'p.agent_id')
        .select(['p.agent_id', 'p.domain', 'p.token', 'p.failing_since', 'a.endpoint', 'a.owner_id', 'a.name', 'a.verified_domain'])
        .where('a.verified_domain', 'is not', null)
        .where('p.checked_at', '<', checkedBefore)
        .orderBy('p.checked_at')
        .limit(limit)
        .execute(),
  };

  return {
    /** Inserts the agent and queues its `registered` event, in one transaction. */
    insert: (row: Insertable<AgentsTable> & LoggedAgent & { created_at: string }) =>
      db.transaction().execute(async (tx) => {
        await tx.insertInto('agents').values(row).execute();
        await queueRegistryEvents(tx, [registeredEvent(row, row.created_at)]);
      }),
    find: (id: string) => db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst(),
    findMany: async (ids: string[]): Promise<AgentRecord[]> =>
      ids.length === 0 ? [] : (await db.selectFrom('agents').selectAll().where('id', 'in', ids).execute()).map(agentRecordOf),
    /** Public agents by slug, after `afterSlug`: the deterministic listing of the standards served (docs/interop.md). */
    publicAgents: async (afterSlug: string | null, limit: number): Promise<AgentRecord[]> =>
      (
        await db
          .selectFrom('agents')
          .selectAll()
          .where('visibility', '=', 'public')
          .where('listing', '=', 'listed')
          .$if(afterSlug !== null, (qb) => qb.where('slug', '>', afterSlug!))
          .orderBy('slug')
          .limit(limit)
          .execute()
      ).map(agentRecordOf),
    probeTargetIds: async (afterId: string | null, limit: number): Promise<string[]> =>
      (
        await db
          .selectFrom('agents')
          .select('id')
          .where('listing', '=', 'listed')
          .where('endpoint', 'is not', null)
          .$if(afterId !== null, (qb) => qb.where('id', '>', afterId!))
          .orderBy('id')
          .limit(limit)
          .execute()
      ).map((row) => row.id),
    slugTaken: async (slug: string) => !!(await db.selectFrom('agents').select('id').where('slug', '=', slug).executeTakeFirst()),
    /** An agent other than `exceptId` whose name has either lookalike key: one probe of each unique index. */
    findLookalike: (keys: { asWritten: string; lowercase: string }, exceptId: string | null) =>
      db
        .selectFrom('agents')
        .selectAll()
        .where((eb) => eb.or([eb('name_skeleton', '=', keys.asWritten), eb('name_skeleton_lower', '=', keys.lowercase)]))
        .$if(exceptId !== null, (qb) => qb.where('id', '!=', exceptId!))
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst(),
    listOwned: (ownerId: string, limit: number, offset: number) =>
      db.selectFrom('agents').selectAll().where('owner_id', '=', ownerId).orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
    /** Every agent the account owns (for account deletion). */
    ownedIds: async (ownerId: string) => (await db.selectFrom('agents').select('id').where('owner_id', '=', ownerId).execute()).map((row) => row.id),
    countOwned: async (ownerId: string) =>
      Number(
        (
          await db
            .selectFrom('agents')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('owner_id', '=', ownerId)
            .executeTakeFirstOrThrow()
        ).n,
      ),
    /**
     * Updates the agent. A change to what the registry log shows (name, owner, key, endpoint,
     * delivery mode, visibility) queues its events in the same transaction; other changes
     * (heartbeats, polls) are one statement.
     */
    update: (id: string, changes: Updateable<AgentsTable>, time?: string) => {
      const update = (executor: Own) => executor.updateTable('agents').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
      if (!loggedColumns.some((column) => column in changes)) return update(db);
      return db.transaction().execute(async (tx) => {
        const before = await loggedState(tx, id);
        const updated = await update(tx);
        await logChange(tx, before, id, time ?? changes.updated_at ?? new Date().toISOString());
        return updated;
      });
    },
    /** Deletes the agent after `deleteAlongside` (its service account), and queues its `deleted` event, in one transaction. */
    async remove(id: string, deleteAlongside: (tx: Tx) => Promise<unknown>, time: string) {
      // On the whole database: the service account goes in the same transaction.
      await database.transaction().execute(async (tx) => {
        const own = ownTables<RegistryTables>(tx);
        const before = await loggedState(own, id);
        await deleteAlongside(tx);
        await own.deleteFrom('agents').where('id', '=', id).execute();
        if (before) await queueRegistryEvents(own, [deletedEvent(before, time)]);
      });
    },

    /**
     * Agents whose capability tags contain any of the terms (loosely: `-` matches any one character,
     * so "text summarization" and "text_summarization" are found too). Callers compare exactly.
     */
    withAnyCapability: async (terms: string[], limit: number): Promise<AgentRecord[]> => {
      if (terms.length === 0) return [];
      const patterns = terms.map((term) => containsPattern(term).replace(/-/g, '_'));
      const rows = await db
        .selectFrom('agents')
        .selectAll()
        .where((eb) => eb.or(patterns.map((pattern) => lowerLike('capabilities', pattern))))
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(agentRecordOf);
    },

    /**
     * Adds a challenge for the agent, issued to `account_id` (null: to anyone). Of the challenges
     * issued to the same account (or to anyone), the `live` most recent unexpired stay valid: older
     * unexpired ones are marked replaced (kept to tell their signatures apart), and only the `kept`
     * most recent are stored at all. Another account's requests never touch them.
     */
    async addChallenge(
      row: { agent_id: string; account_id: string | null; nonce: string; expires_at: string; created_at: string },
      live: number,
      kept: number,
    ): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await lockAgent(tx, row.agent_id);
        const last = await tx
          .selectFrom('claim_challenges')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .where('agent_id', '=', row.agent_id)
          .executeTakeFirst();
        const seq = Number(last?.seq ?? 0) + 1;
        await tx
          .insertInto('claim_challenges')
          .values({ ...row, seq, replaced_at: null })
          .execute();
        const recent = await tx
          .selectFrom('claim_challenges')
          .select('seq')
          .where('agent_id', '=', row.agent_id)
          .where('account_id', row.account_id === null ? 'is' : '=', row.account_id)
          .orderBy('seq', 'desc')
          .limit(kept)
          .execute();
        const liveFrom = recent[live - 1]?.seq;
        if (liveFrom !== undefined) {
          await tx
            .updateTable('claim_challenges')
            .set({ replaced_at: row.created_at })
            .where('agent_id', '=', row.agent_id)
            .where('account_id', row.account_id === null ? 'is' : '=', row.account_id)
            .where('seq', '<', liveFrom)
            .where('replaced_at', 'is', null)
            .where('expires_at', '>', row.created_at)
            .execute();
        }
        const keptFrom = recent[kept - 1]?.seq;
        if (keptFrom !== undefined) {
          await tx
            .deleteFrom('claim_challenges')
            .where('agent_id', '=', row.agent_id)
            .where('account_id', row.account_id === null ? 'is' : '=', row.account_id)
            .where('seq', '<', keptFrom)
            .execute();
        }
      });
    },
    /** The agent's challenges `accountId` may use (its own and those issued to anyone), newest first: valid, replaced and expired alike. */
    challengesOf: (agentId: string, accountId: string | null) =>
      db
        .selectFrom('claim_challenges')
        .selectAll()
        .where('agent_id', '=', agentId)
        .where((eb) => (accountId === null ? eb('account_id', 'is', null) : eb.or([eb('account_id', 'is', null), eb('account_id', '=', accountId)])))
        .orderBy('seq', 'desc')
        .execute(),
    /**
     * Activates the agent and spends its challenges in one transaction. Activating first takes the
     * agent's row, so of any number of concurrent claims exactly one sees it provisional; the claim
     * rolls back if the signed nonce was spent or replaced meanwhile. The claim's signature proved
     * the registration key.
     */
    async claim(agentId: string, nonce: string, ownerId: string, now: string): Promise<'claimed' | 'challenge_gone' | 'not_provisional'> {
      return withChallenge(async (tx: Own) => {
        const before = await loggedState(tx, agentId);
        const activated = await tx
          .updateTable('agents')
          .set({ status: 'active', owner_id: ownerId, claimed_at: now, updated_at: now })
          .where('id', '=', agentId)
          .where('status', '=', 'provisional')
          .executeTakeFirst();
        if (Number(activated.numUpdatedRows) !== 1) return 'not_provisional' as const;
        if (!(await spendChallenges(tx, agentId, nonce, now))) throw new ChallengeGone();
        await markKeyProven(tx, agentId, now);
        await logChange(tx, before, agentId, now);
        return 'claimed' as const;
      });
    },

    markKeyProven: (agentId: string, now: string) => markKeyProven(db, agentId, now),
    domainProofs,

    /**
     * Sets the agent's listing; a delisting or relisting by the moderators queues its registry log
     * event (`logged`) in the same transaction. False when the agent is gone, or when `from` is given
     * and the agent's listing is not one of them (someone else changed it first).
     */
    setListing: (
      agentId: string,
      listing: { state: AgentListing; reason: string | null; since: string },
      options: { from?: readonly AgentListing[]; logged?: { event: 'delisted' | 'relisted'; values: Record<string, unknown> } } = {},
    ) =>
      db.transaction().execute(async (tx) => {
        const changed = await tx
          .updateTable('agents')
          .set({ listing: listing.state, listing_reason: listing.reason, listing_since: listing.since })
          .where('id', '=', agentId)
          .$if(options.from !== undefined, (qb) => qb.where('listing', 'in', [...options.from!]))
          .executeTakeFirst();
        if (Number(changed.numUpdatedRows) !== 1) return false;
        const after = await loggedState(tx, agentId);
        if (options.logged && after) await logAgentEvent(tx as unknown as Kysely<unknown>, after, options.logged.event, options.logged.values, listing.since);
        return true;
      }),

    /** Marks every agent of the owner as limited or not (the owner's account was limited or the limit lifted). */
    setOwnerLimited: (ownerId: string, limited: boolean) =>
      db
        .updateTable('agents')
        .set({ owner_limited: limited ? 1 : 0 })
        .where('owner_id', '=', ownerId)
        .where('owner_limited', '=', limited ? 0 : 1)
        .execute(),

    /** Agents waiting for approval, the longest-waiting first. */
    pendingAgents: (limit: number) =>
      db
        .selectFrom('agents')
        .select(['id', 'name', 'slug', 'owner_id', 'listing_reason', 'listing_since'])
        .where('listing', '=', 'pending')
        .orderBy('listing_since')
        .orderBy('id')
        .limit(limit)
        .execute(),

    /** The registry log's queue: events not yet logged, in the order they were queued. */
    async unloggedEvents(tx: Tx, limit: number): Promise<{ id: number; entry: Buffer }[]> {
      const rows = await ownTables<RegistryTables>(tx)
        .selectFrom('registry_log_events')
        .select(['seq', 'entry'])
        .where('log_index', 'is', null)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: Number(row.seq), entry: Buffer.from(row.entry, 'utf8') }));
    },
    /** Gives queued events their log indexes, `seqs` in log order from `firstIndex`. A VALUES list names its columns column1, column2 on both engines. */
    async markEventsLogged(tx: Tx, seqs: number[], firstIndex: number): Promise<void> {
      const { numAffectedRows } = await sql`UPDATE registry_log_events SET log_index = v.column2
        FROM (VALUES ${sql.join(seqs.map((seq, i) => sql`(CAST(${seq} AS BIGINT), CAST(${firstIndex + i} AS BIGINT))`))}) AS v
        WHERE registry_log_events.seq = v.column1 AND registry_log_events.log_index IS NULL`.execute(tx);
      if (Number(numAffectedRows) !== seqs.length) throw new Error(`registry log: ${seqs.length} events appended but ${Number(numAffectedRows)} marked`);
    },
    /** The agent's events, queued and logged, in log order (queued ones last). */
    eventsOf: (agentId: string) =>
      db.selectFrom('registry_log_events').select(['entry', 'public', 'log_index']).where('agent_id', '=', agentId).orderBy('seq').execute(),
    /** Records a sign of life without reading the row back. */
    markSeen: (agentId: string, now: string) => db.updateTable('agents').set({ last_seen_at: now }).where('id', '=', agentId).execute(),
    /**
     * Spends the key challenges and records the proof in one transaction; null when the signed
     * challenge was spent or replaced meanwhile (a concurrent request). Answers when the key was
     * first proven.
     */
    async proveKey(agentId: string, nonce: string, now: string): Promise<string | null> {
      const outcome = await withChallenge(async (tx: Own) => {
        await lockAgent(tx, agentId);
        if (!(await spendChallenges(tx, agentId, nonce, now))) throw new ChallengeGone();
        await markKeyProven(tx, agentId, now);
        const row = await tx.selectFrom('agents').select('key_verified_at').where('id', '=', agentId).executeTakeFirst();
        return row?.key_verified_at ?? null;
      });
      return outcome === 'challenge_gone' ? null : outcome;
    },
    /** Spends the key challenges and sets the agent's registration key, proven now, in one transaction; false when the challenge went meanwhile. */
    async setKey(agentId: string, nonce: string, pubkey: string, now: string): Promise<boolean> {
      const outcome = await withChallenge(async (tx: Own) => {
        await lockAgent(tx, agentId);
        if (!(await spendChallenges(tx, agentId, nonce, now))) throw new ChallengeGone();
        const before = await loggedState(tx, agentId);
        await tx.updateTable('agents').set({ registration_pubkey: pubkey, key_verified_at: now, updated_at: now }).where('id', '=', agentId).execute();
        await logChange(tx, before, agentId, now);
        return 'set' as const;
      });
      return outcome === 'set';
    },
  };
}

export type RegistryStore = ReturnType<typeof createRegistryStore>;
