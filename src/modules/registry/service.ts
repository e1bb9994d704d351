import { randomBytes } from 'node:crypto';
import type { Tx } from '../../db/database.ts';
import { readerOf, type Principal } from '../../lib/principal.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { badRequest, conflict, forbidden, notFound, unauthorized } from '../../lib/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { decodeBase64Strict } from '../../lib/base64.ts';
import { parsePublicKey, verifyStrict } from '../../lib/ed25519.ts';
import { newId } from '../../lib/ids.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { DEFAULT_CURRENCY } from '../../lib/money.ts';
import { slugify } from '../../lib/slug.ts';
import type { AgentAccountResolver } from '../auth/index.ts';
import { capabilityCategories } from '../catalog/index.ts';
import { domainOfEndpoint, identityLevelOf } from './identity.ts';
import { validateInputSchema } from './input-schema.ts';
import { claimFlow, createKeyChallenges, keyProofFlow, setKeyFlow } from './key-challenges.ts';
import { createAgentNames, type NameKeys } from './names.ts';
import { importableFields, type ImportableField, type ManifestFields, type ManifestImporter } from './manifest.ts';
import type { CreateAgentInput, CreateProvisionalAgentInput, UpdateAgentInput } from './schemas.ts';
import { agentRecordOf, type AgentRecord, type AgentRow, type RegistryStore } from './store.ts';
import { createSeenWriter } from './seen-writer.ts';
import { UNKNOWN_HEALTH, type Health } from '../health/index.ts';
import type { AgentListing } from './tables.ts';

const SIGNED_HEADER_SKEW_S = 300;
const AWAY_LIMIT_MS = 24 * 3600 * 1000;

/** `unknown`: never heard from (no heartbeat or poll yet); routable, so a new agent works at once. */
export type Availability = 'available' | 'away' | 'offline' | 'unknown';

/** The auth types whose credential the service holds and sends: an API key or a bearer token. */
const CREDENTIAL_AUTH_TYPES = new Set(['api_key', 'bearer']);

const categorySlugs = new Set(capabilityCategories.map((category) => category.slug));
const categoryList = capabilityCategories.map((category) => category.slug).join(', ');

/** Categories file agents for browsing and discovery, so only the catalogue's are taken: a misspelt one would file the agent nowhere. */
function checkCategories(categories: readonly string[] | undefined): void {
  const unknown = (categories ?? []).flatMap((slug, index) => (categorySlugs.has(slug) ? [] : [{ slug, index }]));
  if (unknown.length === 0) return;
  throw badRequest(
    `${unknown.map(({ slug }) => `"${slug}"`).join(', ')} ${unknown.length === 1 ? 'is not a category' : 'are not categories'}; the categories are: ${categoryList}`,
    unknown.map(({ index }) => ({ path: `/body/categories/${index}`, message: `is not a category; one of ${categoryList}` })),
  );
}

const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The agents' service accounts (what an agent-bound API key acts as), which the auth module keeps;
 * the registry creates one on first use and deletes it with its agent.
 */
export interface AgentServiceAccounts {
  serviceAccountOf(agentId: string): Promise<{ id: string } | undefined>;
  /** Refused with a unique violation when the agent has one already. */
  insertServiceAccount(row: { id: string; agent_id: string; owner_account_id: string; created_at: string }): Promise<unknown>;
  /** Runs in the transaction that deletes the agent, so neither outlives the other. */
  deleteServiceAccount(tx: Tx, agentId: string): Promise<unknown>;
}

export interface RegistryDeps {
  store: RegistryStore;
  serviceAccounts: AgentServiceAccounts;
  clock: Clock;
  isOrgMember(orgId: string, personId: string): Promise<boolean>;
  heartbeatIntervalMs: number;
  /** Lets a provisional agent poll with its id alone, as the spec has it (unsafe: ids are public). */
  allowUnsignedProvisionalPoll: boolean;
  /** Told once an agent and its service account are deleted, so no cached credential keeps acting as it. */
  agentRemoved(agentId: string): Promise<void>;
  /** Reads manifests at manifestUrl; without it a manifestUrl is only stored. */
  manifests?: ManifestImporter;
  /** Seals the credentials owners store for their agents' A2A endpoints. */
  secrets: SecretBox;
  /** Why the service would refuse to call an endpoint, where that is known at once (null: none known). */
  endpointRefusal(url: string): string | null;
  /** The instance's agent listing policy: under `approval` a new or changed agent waits for a moderator (docs/moderation.md). */
  listingPolicy(): Promise<'open' | 'approval'>;
  /** Whether the account is limited by the moderators (its new agents stay out of discovery too). */
  ownerLimited(accountId: string): Promise<boolean>;
  /** The registry log's proofs of its entries, against its latest checkpoint. */
  registryLog: { inclusionProofs(indexes: number[]): Promise<{ checkpoint: string; proofs: (string | null)[] }> };
  /** Told when a sign of life folded into a later write could not be written. */
  onSeenWriteError?(error: unknown): void;
  /** The agent's health as the registry measures it (the health module); unknown without it. */
  healthOf?(agentId: string): Health;
}

/** Something that registered but will not work as given. */
export interface RegistrationWarning {
  path: string;
  message: string;
}

/** A registration once the request and its manifest together give every required field. */
type CompleteAgentInput = CreateAgentInput &
  Pick<CreateProvisionalAgentInput, 'name' | 'description'> & { protocols: NonNullable<CreateAgentInput['protocols']> };

const requiredFromManifest = ['name', 'description', 'protocols'] as const;

/** What the visibility rule reads of an agent. */
type Seen = Pick<AgentRecord, 'visibility' | 'ownerId' | 'orgId' | 'listing'>;

/**
 * A reported load kept to four decimals: the column is a 4-byte float on PostgreSQL, which refuses
 * (rather than rounds) a value as small as 1e-155, and no routing decision needs finer than 0.0001.
 */
const loadOf = (load: number): number => Math.round(load * 10_000) / 10_000;

export function createRegistryService({
  store,
  serviceAccounts,
  clock,
  isOrgMember,
  heartbeatIntervalMs,
  allowUnsignedProvisionalPoll,
  agentRemoved,
  manifests,
  secrets,
  endpointRefusal,
  registryLog,
  onSeenWriteError = () => {},
  healthOf = () => UNKNOWN_HEALTH,
  listingPolicy,
  ownerLimited,
}: RegistryDeps) {
  const challenges = createKeyChallenges(store, clock);

  /**
   * The one availability rule (docs/registry.md), used by discovery, routing and every view. Heard
   * from within two heartbeat intervals is `available`, except that a poll agent must have polled
   * within them: heartbeats alone say the process runs, not that it takes its tasks, so they keep it
   * `away`. A webhook or A2A agent is heard from by its heartbeats and by its successful deliveries
   * and callbacks.
   */
  function availabilityOf(agent: Pick<AgentRecord, 'lastSeenAt' | 'lastPolledAt' | 'deliveryMode'>): Availability {
    if (!agent.lastSeenAt) return 'unknown';
    const now = clock.now().getTime();
    const recent = (at: string | null) => at !== null && now - Date.parse(at) <= 2 * heartbeatIntervalMs;
    if (recent(agent.lastSeenAt) && (agent.deliveryMode !== 'poll' || recent(agent.lastPolledAt))) return 'available';
    return now - Date.parse(agent.lastSeenAt) <= AWAY_LIMIT_MS ? 'away' : 'offline';
  }

  function view(agent: AgentRecord) {
    return {
      id: agent.id,
      name: agent.name,
      slug: agent.slug,
      description: agent.description,
      longDescription: agent.longDescription,
      endpoint: agent.endpoint,
      protocols: agent.protocols,
      categories: agent.categories,
      capabilities: agent.capabilities,
      tags: agent.tags,
      examples: agent.examples,
      docsUrl: agent.docsUrl,
      manifestUrl: agent.manifestUrl,
      authType: agent.authType,
      version: agent.version,
      visibility: agent.visibility,
      listing: agent.listing,
      orgId: agent.orgId,
      inputSchema: agent.inputSchemaText,
      twitterUrl: agent.twitterUrl,
      status: agent.status,
      ownerId: agent.ownerId,
      registrationPubkey: agent.registrationPubkey,
      claimedAt: agent.claimedAt,
      keyVerified: agent.keyVerifiedAt !== null,
      identityLevel: identityLevelOf(agent),
      verifiedDomain: agent.verifiedDomain,
      cardSignature: agent.cardSignature,
      deliveryMode: agent.deliveryMode,
      hasWebhookSecret: agent.webhookSecret !== null,
      hasAuthCredential: agent.authCredential !== null,
      manifest: agent.manifest,
      availability: availabilityOf(agent),
      lastSeenAt: agent.lastSeenAt,
      health: healthOf(agent.id),
      heartbeat: agent.reportedStatus ? { status: agent.reportedStatus, load: agent.reportedLoad } : null,
      pricePerTaskCents: agent.pricePerTaskCents,
      currency: agent.currency,
      createdAt: agent.createdAt,
      updatedAt: agent.updatedAt,
    };
  }

  /**
   * The visibility rule, in one place: public to all, private to the owner, org to the owner and
   * members. The check it returns is for one viewer over many rows: it answers public and own
   * agents at once, and asks about each org's membership once.
   */
  function visibilityFor(personId: string | null): (agent: Seen) => boolean | Promise<boolean> {
    const membership = new Map<string, Promise<boolean>>();
    return (agent) => {
      // An agent that is not listed (waiting for approval, rejected, delisted) is its owner's alone.
      if (agent.listing.state !== 'listed') return personId !== null && agent.ownerId === personId;
      if (agent.visibility === 'public') return true;
      if (!personId) return false;
      if (agent.ownerId === personId) return true;
      if (agent.visibility !== 'org' || agent.orgId === null) return false;
      let member = membership.get(agent.orgId);
      if (!member) membership.set(agent.orgId, (member = isOrgMember(agent.orgId, personId)));
      return member;
    };
  }

  const canSee = async (agent: Seen, personId: string | null): Promise<boolean> => visibilityFor(personId)(agent);

  /**
   * What discovery shows the viewer: what they may see, listed, and not of a limited account. Even
   * an owner does not find their own unlisted agents by searching: search is the public listing.
   */
  function discoverableFor(personId: string | null): (agent: Seen & Pick<AgentRecord, 'ownerLimited'>) => boolean | Promise<boolean> {
    const mayBeSeen = visibilityFor(personId);
    return (agent) => agent.listing.state === 'listed' && !agent.ownerLimited && mayBeSeen(agent);
  }
  /** The rule applied to a stored row, which this module's own writes work on. */
  const canSeeRow = (row: AgentRow, personId: string | null): Promise<boolean> =>
    canSee(
      {
        visibility: row.visibility,
        ownerId: row.owner_id,
        orgId: row.org_id,
        listing: { state: row.listing, reason: row.listing_reason, since: row.listing_since },
      },
      personId,
    );
  const names = createAgentNames(store, canSeeRow);

  async function findVisible(id: string, personId: string | null): Promise<AgentRow> {
    const row = await store.find(id);
    if (!row || !(await canSeeRow(row, personId))) throw notFound('Agent not found');
    return row;
  }

  /** The agent as `viewer` may see it: a key acting as an agent sees public agents and its own. */
  async function findReadable(id: string, viewer: Principal | null): Promise<AgentRow> {
    if (viewer?.kind === 'agent' && viewer.agentId === id) {
      const own = await store.find(id);
      if (own) return own;
    }
    return findVisible(id, readerOf(viewer));
  }

  /**
   * The agent's own operational state (heartbeats, polls, its balance): its owner, or a key acting as
   * that agent. Hidden agents stay 404, visible ones that are not yours are 403.
   */
  async function findOperated(principal: Principal, id: string): Promise<AgentRow> {
    const row = await findReadable(id, principal);
    if (row.owner_id !== principal.personId) throw forbidden("Only the agent's owner can do this");
    if (principal.kind === 'agent' && principal.agentId !== id) throw forbidden('This credential acts as another agent');
    return row;
  }

  /** What only the owner decides (its endpoint, credentials, keys, payment account, deletion): never an agent's own key. */
  async function findOwned(principal: Principal, id: string): Promise<AgentRow> {
    const row = await findOperated(principal, id);
    refuseAgentKey(principal);
    return row;
  }

  function refuseAgentKey(principal: Principal): void {
    if (principal.kind === 'agent') throw forbidden("This is for the agent's owner; a key acting as an agent cannot do it");
  }

  function checkInputSchema(value: unknown): string | null {
    if (value === undefined || value === null) return null;
    const result = validateInputSchema(value);
    if ('problems' in result) throw badRequest(`inputSchema: ${result.problems[0]!.path} ${result.problems[0]!.message}`, result.problems);
    return result.text;
  }

  /** Webhook when there is an endpoint, else poll, unless asked for; webhook and A2A delivery need an endpoint. */
  function deliveryModeFor(endpoint: string | null | undefined, requested: AgentRow['delivery_mode'] | undefined): AgentRow['delivery_mode'] {
    const mode = requested ?? (endpoint ? 'webhook' : 'poll');
    if (mode !== 'poll' && !endpoint) {
      throw badRequest('endpoint is required unless deliveryMode is "poll"', [{ path: '/body/endpoint', message: `is required for ${mode} delivery` }]);
    }
    return mode;
  }

  /**
   * The sealed credential to store: a new one sealed for this agent, null when removed or when the
   * auth type takes none, else the stored one.
   */
  function credentialFor(agentId: string, authType: string, given: string | null | undefined, stored: string | null): string | null {
    const takesCredential = CREDENTIAL_AUTH_TYPES.has(authType);
    if (typeof given === 'string' && !takesCredential) {
      throw badRequest('authCredential goes with authType "api_key" or "bearer"', [{ path: '/body/authCredential', message: `authType is "${authType}"` }]);
    }
    if (!takesCredential || given === null) return null;
    // It is sent in a header of every A2A call: a line break would end the header there (and Node refuses to send it).
    if (typeof given === 'string' && /[^\t\x20-\x7e\x80-\xff]/.test(given)) {
      throw badRequest('authCredential must be one line of text: it is sent in an HTTP header', [
        { path: '/body/authCredential', message: 'must not contain line breaks, other control characters or characters beyond Latin-1' },
      ]);
    }
    return given === undefined ? stored : secrets.seal(given, agentId);
  }

  /** The fields of `input` left undefined that the manifest at `url` gives, and their names. */
  async function fromManifest<T extends Partial<Record<ImportableField, unknown>>>(
    url: string,
    input: T,
  ): Promise<{ filled: T; fields: ImportableField[]; serverName: string | null; cardSignature: string | null }> {
    if (!manifests) return { filled: input, fields: [], serverName: null, cardSignature: null };
    const manifest: ManifestFields = await manifests.load(url);
    const filled: Record<string, unknown> = { ...input };
    const fields: ImportableField[] = [];
    for (const field of importableFields) {
      if (input[field] !== undefined || manifest[field] === undefined) continue;
      filled[field] = manifest[field];
      fields.push(field);
    }
    return {
      filled: filled as T,
      fields,
      serverName: manifest.serverName ?? null,
      cardSignature: manifest.cardSignature ? JSON.stringify(manifest.cardSignature) : null,
    };
  }

  async function checkVisibility(principal: Principal, visibility: string, orgId: string | null | undefined): Promise<string | null> {
    if (visibility !== 'org') {
      if (orgId) throw badRequest('orgId goes with visibility "org"', [{ path: '/body/orgId', message: 'only with visibility "org"' }]);
      return null;
    }
    if (!orgId) throw badRequest('visibility "org" needs an orgId', [{ path: '/body/orgId', message: 'is required for visibility "org"' }]);
    if (!(await isOrgMember(orgId, principal.personId))) throw notFound('Organization not found');
    return orgId;
  }

  /** The slug and lookalike keys of a new agent's name, once its characters, slug and looks are free to use. */
  async function namingFor(name: string, viewerId: string | null): Promise<{ slug: string; keys: NameKeys }> {
    names.checkCharacters(name);
    const slug = await slugFor(name);
    return { slug, keys: await names.keysFor(name, null, viewerId) };
  }

  async function slugFor(name: string): Promise<string> {
    const slug = slugify(name);
    if (!slug) throw badRequest('name must contain letters or digits', [{ path: '/body/name', message: 'gives an empty slug' }]);
    if (await store.slugTaken(slug)) throw conflict(`The slug "${slug}" is taken; choose another name`);
    return slug;
  }

  async function insertAgent(row: AgentRow, viewerId: string | null): Promise<AgentRow> {
    try {
      await store.insert(row);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (await store.slugTaken(row.slug)) throw conflict(`The slug "${row.slug}" is taken; choose another name`);
      throw await names.lostRace(row.name, null, viewerId);
    }
    return row;
  }

  /** Warnings for a registration the service accepts but will not be able to deliver to as given. */
  function warningsFor(row: AgentRow): RegistrationWarning[] {
    const refusal = row.endpoint ? endpointRefusal(row.endpoint) : null;
    if (!refusal) return [];
    return [
      {
        path: '/body/endpoint',
        message:
          `Registered, but tasks sent to this endpoint will fail: ${refusal}, so this service will not call it. ` +
          `To take them on this machine, run \`agentry listen --agent ${row.id} --forward-to ${row.endpoint}\`, which fetches them ` +
          'from the service and forwards each to that URL; or give a public address, or use deliveryMode "poll" ' +
          '(for local development the operator may set ALLOW_PRIVATE_ENDPOINTS=true).',
      },
    ];
  }

  async function baseRow(
    input: CreateProvisionalAgentInput | CompleteAgentInput,
    naming: { slug: string; keys: NameKeys },
    now: string,
    ownerId: string | null,
  ) {
    const deliveryMode = deliveryModeFor(input.endpoint, input.deliveryMode);
    const waits = (await listingPolicy()) === 'approval';
    return {
      id: newId(),
      listing: waits ? ('pending' as const) : ('listed' as const),
      listing_reason: waits ? 'new' : null,
      listing_since: now,
      owner_limited: ownerId !== null && (await ownerLimited(ownerId)) ? 1 : 0,
      name: input.name,
      slug: naming.slug,
      ...naming.keys,
      description: input.description,
      endpoint: input.endpoint ?? null,
      protocols: JSON.stringify(input.protocols ?? []),
      categories: JSON.stringify(input.categories ?? []),
      capabilities: JSON.stringify(input.capabilities ?? []),
      tags: JSON.stringify(input.tags ?? []),
      examples: JSON.stringify(input.examples ?? []),
      manifest_url: input.manifestUrl ?? null,
      version: input.version ?? '1.0.0',
      delivery_mode: deliveryMode,
      // A webhook agent can be sent its first task at once: its signing secret comes with its registration.
      webhook_secret: deliveryMode === 'webhook' ? newWebhookSecret() : null,
      last_seen_at: null,
      last_polled_at: null,
      reported_status: null,
      reported_load: null,
      verified_domain: null,
      domain_verified_at: null,
      card_signature: null,
      price_per_task_cents: input.pricePerTaskCents ?? 0,
      currency: input.currency ?? DEFAULT_CURRENCY,
      created_at: now,
      updated_at: now,
    };
  }

  const agentAccounts: AgentAccountResolver = {
    async serviceAccountFor(agentId, personId) {
      const row = await findVisible(agentId, personId);
      if (row.status === 'provisional') throw conflict('Claim this agent before binding keys or a profile to it');
      if (row.owner_id !== personId) throw forbidden("Only the agent's owner can do this");
      const existing = await serviceAccounts.serviceAccountOf(agentId);
      if (existing) return { accountId: existing.id };
      const id = newId();
      try {
        await serviceAccounts.insertServiceAccount({ id, agent_id: agentId, owner_account_id: personId, created_at: isoNow(clock) });
        return { accountId: id };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const raced = await serviceAccounts.serviceAccountOf(agentId);
        if (!raced) throw error;
        return { accountId: raced.id };
      }
    },
  };

  const seenWriter = createSeenWriter((agentId) => store.markSeen(agentId, isoNow(clock)), onSeenWriteError);

  return {
    view,
    canSee,
    visibilityFor,
    discoverableFor,
    availabilityOf,
    healthOf,
    /** Listed agents with an endpoint, by id after `afterId`: the ones the prober checks. */
    probeTargetIds: store.probeTargetIds,
    agentAccounts,
    /** A successful delivery to the agent or callback from it: a sign of life, as a heartbeat is. */
    markSeen: seenWriter.seen,
    /** The node stops: no sign of life is written after this. */
    stopSeenWrites: seenWriter.stop,
    findOwned: async (principal: Principal, id: string): Promise<AgentRecord> => agentRecordOf(await findOwned(principal, id)),
    findOperated: async (principal: Principal, id: string): Promise<AgentRecord> => agentRecordOf(await findOperated(principal, id)),

    async register(principal: Principal, requested: CreateAgentInput) {
      refuseAgentKey(principal);
      const imported = requested.manifestUrl
        ? await fromManifest(requested.manifestUrl, requested)
        : { filled: requested, fields: [], serverName: null, cardSignature: null };
      const missing = requiredFromManifest.filter((field) => imported.filled[field] === undefined);
      // No manifest gives categories: they are the catalogue's, chosen at registration.
      const noCategories = requested.categories === undefined;
      if (missing.length > 0 || noCategories) {
        const hint = requested.manifestUrl ? ' (the manifest at manifestUrl does not give them either)' : ' (or give a manifestUrl whose manifest has them)';
        const fields = [...missing, ...(noCategories ? ['categories'] : [])];
        throw badRequest(
          `${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} required${missing.length > 0 ? hint : ''}${noCategories ? `; the categories are: ${categoryList}` : ''}`,
          [
            ...missing.map((field) => ({ path: `/body/${field}`, message: 'is required' })),
            ...(noCategories ? [{ path: '/body/categories', message: `is required: one or more of ${categoryList}` }] : []),
          ],
        );
      }
      checkCategories(requested.categories);
      const input = imported.filled as CompleteAgentInput;
      const visibility = input.visibility ?? 'public';
      const orgId = await checkVisibility(principal, visibility, input.orgId);
      const inputSchema = checkInputSchema(input.inputSchema);
      const pubkey = input.pubkey === undefined ? null : parsePublicKey(input.pubkey, 'pubkey').canonical;
      const now = isoNow(clock);
      const base = await baseRow(input, await namingFor(input.name, principal.personId), now, principal.personId);
      const authType = input.authType ?? 'none';
      const row = await insertAgent(
        {
          ...base,
          manifest_imported_at: imported.fields.length > 0 ? now : null,
          manifest_fields: imported.fields.length > 0 ? JSON.stringify(imported.fields) : null,
          mcp_server_name: imported.serverName,
          card_signature: imported.cardSignature,
          long_description: input.longDescription ?? null,
          docs_url: input.docsUrl ?? null,
          auth_type: authType,
          auth_credential: credentialFor(base.id, authType, input.authCredential, null),
          visibility,
          org_id: orgId,
          input_schema: inputSchema,
          twitter_url: input.twitterUrl ?? null,
          status: 'active',
          owner_id: principal.personId,
          registration_pubkey: pubkey,
          claimed_at: null,
          key_verified_at: null,
        },
        principal.personId,
      );
      return { data: { ...view(agentRecordOf(row)), ...webhookSecretOf(row) }, warnings: warningsFor(row) };
    },

    async registerProvisional(input: CreateProvisionalAgentInput) {
      checkCategories(input.categories);
      const inputSchema = checkInputSchema(input.inputSchema);
      const pubkey = parsePublicKey(input.pubkey, 'pubkey').canonical;
      const now = isoNow(clock);
      const row = await insertAgent(
        {
          ...(await baseRow(input, await namingFor(input.name, null), now, null)),
          manifest_imported_at: null,
          manifest_fields: null,
          mcp_server_name: null,
          long_description: null,
          docs_url: null,
          auth_type: 'none',
          auth_credential: null,
          visibility: 'public',
          org_id: null,
          input_schema: inputSchema,
          twitter_url: null,
          status: 'provisional',
          owner_id: null,
          registration_pubkey: pubkey,
          claimed_at: null,
          key_verified_at: null,
        },
        null,
      );
      return {
        data: { id: row.id, name: row.name, slug: row.slug, status: 'provisional', ownerId: null, registrationPubkey: pubkey, ...webhookSecretOf(row) },
        warnings: warningsFor(row),
      };
    },

    async get(viewer: Principal | null, id: string) {
      return view(agentRecordOf(await findReadable(id, viewer)));
    },

    /**
     * The agent's registry log events, each with its inclusion proof against the latest checkpoint
     * (null while it waits to be logged). An agent is seen as `get` sees it; a deleted one only if
     * it was public when deleted (its entries showed it).
     */
    async history(viewer: Principal | null, id: string) {
      const exists = await store.find(id);
      if (exists) await findReadable(id, viewer);
      const rows = await store.eventsOf(id);
      if (!exists && rows.at(-1)?.public !== 1) throw notFound('Agent not found');
      const logged = rows.flatMap((row) => (row.log_index === null ? [] : [Number(row.log_index)]));
      const { checkpoint, proofs } = logged.length > 0 ? await registryLog.inclusionProofs(logged) : { checkpoint: null, proofs: [] };
      const proofOf = new Map(logged.map((index, i) => [index, proofs[i] ?? null]));
      return {
        agentId: id,
        checkpoint,
        events: rows.map((row) => {
          const logIndex = row.log_index === null ? null : Number(row.log_index);
          const proof = logIndex === null ? null : (proofOf.get(logIndex) ?? null);
          return { ...(JSON.parse(row.entry) as { agentId: string; event: string; values: Record<string, unknown>; time: string }), logIndex, proof };
        }),
      };
    },

    async listMine(principal: Principal, limit: number, offset: number) {
      if (principal.kind === 'agent') {
        // A key acting as an agent owns nothing: its own agent is all it is shown.
        const own = principal.agentId === null ? undefined : await store.find(principal.agentId);
        const data = own && offset === 0 && limit > 0 ? [view(agentRecordOf(own))] : [];
        const total = own ? 1 : 0;
        return { data, pagination: { limit, offset, total, hasMore: offset + data.length < total } };
      }
      const [rows, total] = await Promise.all([store.listOwned(principal.personId, limit, offset), store.countOwned(principal.personId)]);
      return { data: rows.map((row) => view(agentRecordOf(row))), pagination: { limit, offset, total, hasMore: offset + rows.length < total } };
    },

    async update(principal: Principal, id: string, requested: UpdateAgentInput) {
      const row = await findOwned(principal, id);
      checkCategories(requested.categories);
      // A new manifest URL is read again; its values replace the stored ones the request does not set.
      const imported = requested.manifestUrl ? await fromManifest(requested.manifestUrl, requested) : null;
      const input = imported?.filled ?? requested;
      const endpoint = input.endpoint !== undefined ? input.endpoint : row.endpoint;
      const endpointMoved = endpoint !== row.endpoint;
      const visibility = input.visibility ?? row.visibility;
      const orgId = await checkVisibility(principal, visibility, input.orgId !== undefined ? input.orgId : visibility === 'org' ? row.org_id : null);
      // Sending the current name back (a client that PATCHes the whole agent) is no rename.
      const rename = input.name !== undefined && input.name !== row.name ? input.name : null;
      if (rename !== null) names.checkCharacters(rename);
      // Under the approval policy, a listed (or rejected) agent whose name, description or endpoint changes waits again.
      const describedAnew = rename !== null || endpointMoved || (input.description !== undefined && input.description !== row.description);
      const waitsAgain = describedAnew && (row.listing === 'listed' || row.listing === 'rejected') && (await listingPolicy()) === 'approval';
      const changes = {
        ...(waitsAgain ? { listing: 'pending' as const, listing_reason: 'changed', listing_since: isoNow(clock) } : {}),
        ...(rename !== null ? { name: rename, ...(await names.keysFor(rename, id, principal.personId)) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        endpoint,
        ...(input.protocols !== undefined ? { protocols: JSON.stringify(input.protocols) } : {}),
        ...(input.categories !== undefined ? { categories: JSON.stringify(input.categories) } : {}),
        ...(input.capabilities !== undefined ? { capabilities: JSON.stringify(input.capabilities) } : {}),
        ...(input.tags !== undefined ? { tags: JSON.stringify(input.tags) } : {}),
        ...(input.examples !== undefined ? { examples: JSON.stringify(input.examples ?? []) } : {}),
        ...(input.manifestUrl !== undefined ? { manifest_url: input.manifestUrl } : {}),
        ...(imported
          ? {
              manifest_imported_at: imported.fields.length > 0 ? isoNow(clock) : null,
              manifest_fields: imported.fields.length > 0 ? JSON.stringify(imported.fields) : null,
              mcp_server_name: imported.serverName,
              card_signature: imported.cardSignature,
            }
          : input.manifestUrl === null
            ? { manifest_imported_at: null, manifest_fields: null, mcp_server_name: null, card_signature: null }
            : {}),
        ...(input.version !== undefined ? { version: input.version } : {}),
        delivery_mode: deliveryModeFor(endpoint, input.deliveryMode ?? row.delivery_mode),
        ...(input.longDescription !== undefined ? { long_description: input.longDescription } : {}),
        ...(input.docsUrl !== undefined ? { docs_url: input.docsUrl } : {}),
        ...(input.authType !== undefined ? { auth_type: input.authType } : {}),
        // The stored credential was given for the old host: it never follows the endpoint to a new one.
        auth_credential: credentialFor(row.id, input.authType ?? row.auth_type, input.authCredential, endpointMoved ? null : row.auth_credential),
        visibility,
        org_id: orgId,
        ...(input.inputSchema !== undefined ? { input_schema: checkInputSchema(input.inputSchema) } : {}),
        ...(input.twitterUrl !== undefined ? { twitter_url: input.twitterUrl } : {}),
        ...(input.pricePerTaskCents !== undefined ? { price_per_task_cents: input.pricePerTaskCents } : {}),
        ...(input.currency !== undefined ? { currency: input.currency } : {}),
        updated_at: isoNow(clock),
      };
      let updated: AgentRow | undefined;
      try {
        updated = await store.update(id, changes);
      } catch (error) {
        if (rename !== null && isUniqueViolation(error)) throw await names.lostRace(rename, id, principal.personId);
        throw error;
      }
      if (!updated) throw notFound('Agent not found');
      // A domain proof is about a host: an endpoint moved off it loses the mark (views stop showing it at once).
      if (row.verified_domain !== null && domainOfEndpoint(endpoint) !== row.verified_domain)
        await store.domainProofs.lose(id, row.verified_domain, 'the endpoint moved to another host', isoNow(clock));
      const credentialCleared = endpointMoved && row.auth_credential !== null && input.authCredential === undefined;
      return {
        data: view(agentRecordOf(updated)),
        ...(credentialCleared
          ? { message: 'The endpoint changed, so its stored credential was removed: send authCredential again for the new endpoint.' }
          : {}),
      };
    },

    /** The ids of every agent the account owns. */
    ownedAgentIds: (accountId: string) => store.ownedIds(accountId),

    /**
     * Moderation's one way to change an agent's listing (delist, relist, approve, reject); `logged`
     * records a delisting or relisting in the public registry log with the change. False when the
     * agent is gone or its listing was not one of `from`.
     */
    setListing: (
      agentId: string,
      listing: { state: AgentListing; reason: string | null },
      options: { from?: readonly AgentListing[]; logged?: { event: 'delisted' | 'relisted'; values: Record<string, unknown> } } = {},
    ) => store.setListing(agentId, { ...listing, since: isoNow(clock) }, options),
    setOwnerLimited: (ownerId: string, limited: boolean) => store.setOwnerLimited(ownerId, limited),
    /** Agents waiting for a moderator's approval, the longest-waiting first. */
    pendingAgents: (limit: number) => store.pendingAgents(limit),

    /** Account deletion's part: every agent the account owns goes, as if removed one by one. */
    async removeAllOwnedBy(accountId: string) {
      for (const id of await store.ownedIds(accountId)) {
        await store.remove(id, (tx) => serviceAccounts.deleteServiceAccount(tx, id), isoNow(clock));
        await agentRemoved(id);
      }
    },

    async remove(principal: Principal, id: string) {
      await findOwned(principal, id);
      await store.remove(id, (tx) => serviceAccounts.deleteServiceAccount(tx, id), isoNow(clock));
      await agentRemoved(id);
      return { id, deleted: true };
    },

    /** A claim challenge issued to the caller's account, or with no caller to anyone. */
    async challenge(id: string, caller: Principal | null) {
      const row = await findVisible(id, null);
      if (row.status !== 'provisional') throw conflict('This agent is already claimed');
      return challenges.issue(id, caller?.accountId ?? null, registrationKeyOf(row), claimFlow);
    },

    async claim(principal: Principal, id: string, signatureText: string) {
      const row = await findVisible(id, readerOf(principal));
      refuseAgentKey(principal);
      if (row.status !== 'provisional' || !row.registration_pubkey) throw conflict('This agent is already claimed');
      const stored = await store.challengesOf(id, principal.accountId);
      // A concurrent claim may have won (and spent the challenges) since the agent was read.
      if (stored.length === 0 && (await store.find(id))?.status !== 'provisional') throw conflict('This agent is already claimed');
      const nonce = challenges.signedNonce(id, stored, row.registration_pubkey, signatureText, claimFlow);
      const now = isoNow(clock);
      const outcome = await store.claim(id, nonce, principal.personId, now);
      if (outcome === 'not_provisional') throw conflict('This agent was claimed by a concurrent request');
      if (outcome === 'challenge_gone')
        throw badRequest(`The claim challenge was replaced while this claim ran: request a new one with ${claimFlow.request(id)}`);
      return { id, status: 'active', ownerId: principal.personId, claimedAt: now };
    },

    /** A nonce for the owner to sign with the agent's registration key, or with a new key to set (docs/registry.md). */
    async keyChallenge(principal: Principal, id: string) {
      const row = await findOwned(principal, id);
      return challenges.issue(id, principal.accountId, row.registration_pubkey, keyProofFlow);
    },

    /** Adds or replaces the registration key of an owned agent: `signatureText` is the new key's signature over a key challenge. */
    async setKey(principal: Principal, id: string, pubkeyText: string, signatureText: string) {
      await findOwned(principal, id);
      const pubkey = parsePublicKey(pubkeyText, 'pubkey').canonical;
      const nonce = challenges.signedNonce(id, await store.challengesOf(id, principal.accountId), pubkey, signatureText, setKeyFlow);
      const now = isoNow(clock);
      if (!(await store.setKey(id, nonce, pubkey, now))) throw badRequest('The key challenge was used or replaced by a concurrent request: request a new one');
      return { id, registrationPubkey: pubkey, keyVerified: true, keyVerifiedAt: now };
    },

    async proveKey(principal: Principal, id: string, signatureText: string) {
      const key = registrationKeyOf(await findOwned(principal, id));
      const nonce = challenges.signedNonce(id, await store.challengesOf(id, principal.accountId), key, signatureText, keyProofFlow);
      const keyVerifiedAt = await store.proveKey(id, nonce, isoNow(clock));
      if (!keyVerifiedAt) throw badRequest('The key challenge was used or replaced by a concurrent request: request a new one');
      return { id, keyVerifiedAt };
    },

    async heartbeat(
      principal: Principal | null,
      id: string,
      signedHeader: string | undefined,
      body: { status?: 'available' | 'busy' | 'maintenance'; load?: number },
    ) {
      // A signature by the registration key authenticates the heartbeat and proves the key, whatever credential comes with it.
      if (signedHeader !== undefined) await authenticateBySignature(id, signedHeader);
      else if (principal) await findOperated(principal, id);
      else throw unauthorized("Send the owner's credential, or X-Agent-Signature signed by the agent's registration key");
      const now = isoNow(clock);
      const updated = await store.update(id, {
        last_seen_at: now,
        reported_status: body.status ?? 'available',
        reported_load: body.load === undefined ? null : loadOf(body.load),
      });
      if (!updated) throw notFound('Agent not found');
      return {
        id,
        availability: availabilityOf(agentRecordOf(updated)),
        lastSeenAt: now,
        heartbeat: { status: updated.reported_status ?? 'available', load: updated.reported_load },
      };
    },

    /** The stored agent, whoever may see it: for work already decided (a task's delivery, its assigned agent). */
    findAgent: async (id: string): Promise<AgentRecord | undefined> => {
      const row = await store.find(id);
      return row ? agentRecordOf(row) : undefined;
    },
    findAgents: (ids: string[]) => store.findMany(ids),
    /** The agent if the person (null: anyone) may see it. */
    async visibleAgent(id: string, personId: string | null): Promise<AgentRecord | undefined> {
      const row = await store.find(id);
      return row && (await canSeeRow(row, personId)) ? agentRecordOf(row) : undefined;
    },
    /** Task routing's candidates: the agents the person may see whose capability tags may hold any of the terms (store.withAnyCapability). */
    async visibleWithAnyCapability(terms: string[], personId: string | null, limit = 500): Promise<AgentRecord[]> {
      const mayBeSeen = visibilityFor(personId);
      const visible: AgentRecord[] = [];
      for (const agent of await store.withAnyCapability(terms, limit)) if (agent.listing.state === 'listed' && (await mayBeSeen(agent))) visible.push(agent);
      return visible;
    },

    /**
     * Who may take an agent's queued tasks: whoever proves its registration key with
     * X-Agent-Signature, claimed or not (the process keeps working unchanged after its claim); for a
     * provisional agent without it, anyone only if the operator allows that (its id is public); for
     * a claimed one, its owner or a key acting as that agent. A poll is a heartbeat that also says
     * the agent takes its tasks.
     */
    async authorizePoll(principal: Principal | null, id: string, signedHeader: string | undefined): Promise<AgentRecord> {
      const row = await store.find(id);
      if (!row) throw notFound('Agent not found');
      if (signedHeader !== undefined) {
        await authenticateBySignature(id, signedHeader, row);
      } else if (row.status === 'provisional') {
        if (!allowUnsignedProvisionalPoll) {
          throw unauthorized(
            'Polling a provisional agent needs X-Agent-Signature: <unix seconds>.<signature over "<agentId>.<unix seconds>" by the registration key>',
          );
        }
      } else {
        if (!principal)
          throw unauthorized("Polling a claimed agent needs X-Agent-Signature by its registration key, its owner's credential or the agent's API key");
        await findOperated(principal, id);
      }
      const now = isoNow(clock);
      return agentRecordOf((await store.update(id, { last_seen_at: now, last_polled_at: now })) ?? row);
    },

    async rotateWebhookSecret(principal: Principal, id: string) {
      await findOwned(principal, id);
      const secret = newWebhookSecret();
      await store.update(id, { webhook_secret: secret, updated_at: isoNow(clock) });
      return { agentId: id, secret };
    },

    async deleteWebhookSecret(principal: Principal, id: string) {
      const row = await findOwned(principal, id);
      if (!row.webhook_secret) throw notFound('This agent has no webhook secret');
      await store.update(id, { webhook_secret: null, updated_at: isoNow(clock) });
      return { agentId: id, deleted: true };
    },
  };

  /** Shown once, in the registration's answer; views only say hasWebhookSecret. */
  function webhookSecretOf(row: AgentRow): { webhookSecret?: string } {
    return row.webhook_secret ? { webhookSecret: row.webhook_secret } : {};
  }

  /** Checks `X-Agent-Signature` against the agent's registration key (401 unless it verifies) and records the key as proven. */
  async function authenticateBySignature(id: string, header: string, known?: AgentRow): Promise<AgentRow> {
    const row = known ?? (await store.find(id));
    if (!row) throw notFound('Agent not found');
    verifyAgentSignature(row, header);
    if (row.key_verified_at === null) await store.markKeyProven(id, isoNow(clock));
    return row;
  }

  function registrationKeyOf(row: AgentRow): string {
    if (!row.registration_pubkey) throw conflict('This agent has no registration key to prove: it was registered without a pubkey');
    return row.registration_pubkey;
  }

  /** `X-Agent-Signature: <unix seconds>.<base64url Ed25519 signature over "<agentId>.<unix seconds>">`. */
  function verifyAgentSignature(row: AgentRow, header: string): void {
    const match = /^(\d{1,12})\.([A-Za-z0-9_\-+/=]{80,100})$/.exec(header);
    if (!match || !row.registration_pubkey) throw unauthorized('X-Agent-Signature is malformed or the agent has no registration key');
    const seconds = Number(match[1]);
    if (Math.abs(clock.now().getTime() / 1000 - seconds) > SIGNED_HEADER_SKEW_S) throw unauthorized('X-Agent-Signature timestamp is more than 300 s from now');
    const signature = decodeBase64Strict(match[2]!, 64);
    const key = parsePublicKey(row.registration_pubkey);
    if (!signature || !verifyStrict(key.raw, Buffer.from(`${row.id}.${match[1]}`, 'utf8'), signature)) {
      throw unauthorized('X-Agent-Signature does not verify with the registration key');
    }
  }
}

export type RegistryService = ReturnType<typeof createRegistryService>;
