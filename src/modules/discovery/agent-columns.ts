/**
 * What search needs of every agent on the request thread, by slot, in typed arrays and shared
 * strings rather than one record per agent: what filters, the visibility rule, availability and the
 * order of equal results read. Everything else of an agent (its texts, endpoint, view) is read from
 * the database for the page being answered. About 250 bytes per agent, against 4-6 KB for a record.
 */
import { normalizeCapabilityTerm } from '../catalog/index.ts';
import { identityLevelOf, type AgentRecord } from '../registry/index.ts';
import { packJson, unpackJson, type PackedArray } from './packed-file.ts';
import { createSlotLists } from './slot-lists.ts';

/** The fields of an agent the registry's visibility rule reads (RegistryView.discoverableFor). */
export type VisibilityFields = Pick<AgentRecord, 'visibility' | 'ownerId' | 'orgId' | 'listing' | 'ownerLimited'>;
/** The fields of an agent its availability is worked out from (RegistryView.availabilityOf). */
export type AvailabilityFields = Pick<AgentRecord, 'lastSeenAt' | 'lastPolledAt' | 'deliveryMode'>;

/** Search's filters (the query's `category`, `protocol`, `identityLevel`, `capability`). */
export interface AgentFilter {
  category?: string | undefined;
  protocol?: string | undefined;
  identityLevel?: string | undefined;
  /** The capability as a term (normalised like agents' capability and tag terms). */
  capabilityTerm?: string | undefined;
  /** The catalogue capability it names, if any. */
  capabilitySlug?: string | undefined;
}

/** Small sets of strings (visibility, listing states, ...) as one-byte codes. */
function codes<T extends string>() {
  const values: T[] = [];
  const byValue = new Map<T, number>();
  return {
    of(value: T): number {
      let code = byValue.get(value);
      if (code === undefined) {
        byValue.set(value, (code = values.length));
        values.push(value);
      }
      return code;
    },
    at: (code: number): T => values[code]!,
    values: (): T[] => [...values],
    restore(saved: T[]): void {
      values.length = 0;
      byValue.clear();
      for (const value of saved) this.of(value);
    },
  };
}

const GROWTH = 1.25;
const NONE = Number.NaN;

const timeOf = (iso: string | null): number => (iso === null ? NONE : Date.parse(iso));
const isoOf = (time: number): string | null => (Number.isNaN(time) ? null : new Date(time).toISOString());

/** Kinds of term, kept apart in one dictionary by a prefix. */
const CATEGORY = 'c:';
const PROTOCOL = 'p:';
const TERM = 't:';
const DECLARED = 'd:';

export function createAgentColumns() {
  const ids: (string | undefined)[] = [];
  const slotOf = new Map<string, number>();
  const names: (string | undefined)[] = [];
  const provenKeys: (string | null | undefined)[] = [];
  // Owner and organisation of agents that are not public: whom the visibility rule shows them to.
  const restricted = new Map<number, { ownerId: string | null; orgId: string | null }>();
  let visibility: Uint8Array = new Uint8Array(0);
  let listing: Uint8Array = new Uint8Array(0);
  let ownerLimited: Uint8Array = new Uint8Array(0);
  let identityLevel: Uint8Array = new Uint8Array(0);
  let deliveryMode: Uint8Array = new Uint8Array(0);
  let lastSeen: Float64Array = new Float64Array(0);
  let lastPolled: Float64Array = new Float64Array(0);
  // Of the index (agent-index.ts): a key of the agent's embedded text, and whether the scorer has
  // its sentence vector.
  let textKeys: Float64Array = new Float64Array(0);
  let sentence: Uint8Array = new Uint8Array(0);
  // Terms (categories, protocols, capability and tag terms, declared catalogue slugs) as ids.
  const terms = createSlotLists();
  const termIds = new Map<string, number>();
  const termOf: string[] = [];
  const visibilities = codes<AgentRecord['visibility']>();
  const listings = codes<AgentRecord['listing']['state']>();
  const levels = codes<string>();
  const modes = codes<AgentRecord['deliveryMode']>();

  function ensure(slot: number): void {
    if (slot < visibility.length) return;
    const next = Math.max(256, slot + 1, Math.ceil(visibility.length * GROWTH));
    const grow = <T extends Uint8Array | Float64Array>(array: T, make: (n: number) => T, fill = 0): T => {
      const grown = make(next);
      grown.fill(fill);
      grown.set(array);
      return grown;
    };
    visibility = grow(visibility, (n) => new Uint8Array(n));
    listing = grow(listing, (n) => new Uint8Array(n));
    ownerLimited = grow(ownerLimited, (n) => new Uint8Array(n));
    identityLevel = grow(identityLevel, (n) => new Uint8Array(n));
    deliveryMode = grow(deliveryMode, (n) => new Uint8Array(n));
    lastSeen = grow(lastSeen, (n) => new Float64Array(n), NONE);
    lastPolled = grow(lastPolled, (n) => new Float64Array(n), NONE);
    textKeys = grow(textKeys, (n) => new Float64Array(n), NONE);
    sentence = grow(sentence, (n) => new Uint8Array(n));
  }

  const termId = (term: string): number => {
    let id = termIds.get(term);
    if (id === undefined) {
      termIds.set(term, (id = termOf.length));
      termOf.push(term);
    }
    return id;
  };
  const has = (slot: number, term: string): boolean => {
    const id = termIds.get(term);
    return id !== undefined && terms.has(slot, id);
  };
  function clear(slot: number): void {
    const id = ids[slot];
    if (id !== undefined) slotOf.delete(id);
    ids[slot] = names[slot] = provenKeys[slot] = undefined;
    restricted.delete(slot);
    terms.clear(slot);
    textKeys[slot] = NONE;
    sentence[slot] = 0;
  }
  const termsAt = (slot: number, prefix: string): string[] =>
    Array.from(terms.get(slot), (id) => termOf[id]!)
      .filter((term) => term.startsWith(prefix))
      .map((term) => term.slice(prefix.length));

  return {
    /**
     * Sets the agent in `slot`; `declared` are the catalogue slugs its terms name, `textKey` a key of
     * its embedded text. A new text has no sentence vector yet; the same text keeps what it had.
     */
    set(slot: number, record: AgentRecord, declared: string[], textKey: number): void {
      ensure(slot);
      const previous = ids[slot];
      if (previous !== undefined && previous !== record.id) clear(slot);
      if (textKeys[slot] !== textKey) sentence[slot] = 0;
      textKeys[slot] = textKey;
      ids[slot] = record.id;
      slotOf.set(record.id, slot);
      names[slot] = record.name;
      provenKeys[slot] = record.provenKey;
      if (record.visibility === 'public') restricted.delete(slot);
      else restricted.set(slot, { ownerId: record.ownerId, orgId: record.orgId });
      visibility[slot] = visibilities.of(record.visibility);
      listing[slot] = listings.of(record.listing.state);
      ownerLimited[slot] = record.ownerLimited ? 1 : 0;
      identityLevel[slot] = levels.of(identityLevelOf(record));
      deliveryMode[slot] = modes.of(record.deliveryMode);
      lastSeen[slot] = timeOf(record.lastSeenAt);
      lastPolled[slot] = timeOf(record.lastPolledAt);
      terms.set(slot, [
        ...new Set([
          ...record.categories.map((category) => termId(CATEGORY + category)),
          ...record.protocols.map((protocol) => termId(PROTOCOL + protocol)),
          ...[...record.capabilities, ...record.tags].map((term) => termId(TERM + normalizeCapabilityTerm(term))),
          ...declared.map((slug) => termId(DECLARED + slug)),
        ]),
      ]);
    },

    clear,
    /** Clears every slot. */
    reset(): void {
      for (let slot = 0; slot < ids.length; slot++) if (ids[slot] !== undefined) clear(slot);
    },

    slotOf: (id: string): number | undefined => slotOf.get(id),
    textKeyAt: (slot: number): number => textKeys[slot] ?? NONE,
    hasSentence: (slot: number): boolean => sentence[slot] === 1,
    setHasSentence(slot: number, has: boolean): void {
      sentence[slot] = has ? 1 : 0;
    },
    idAt: (slot: number): string | undefined => ids[slot],
    nameAt: (slot: number): string => names[slot] ?? '',
    provenKeyAt: (slot: number): string | null => provenKeys[slot] ?? null,
    /** Every slot holding an agent, in slot order. */
    *slots(): Iterable<number> {
      for (let slot = 0; slot < ids.length; slot++) if (ids[slot] !== undefined) yield slot;
    },

    visibilityAt(slot: number): VisibilityFields {
      const owner = restricted.get(slot);
      return {
        visibility: visibilities.at(visibility[slot]!),
        ownerId: owner?.ownerId ?? null,
        orgId: owner?.orgId ?? null,
        listing: { state: listings.at(listing[slot]!), reason: null, since: null },
        ownerLimited: ownerLimited[slot] === 1,
      };
    },
    availabilityAt: (slot: number): AvailabilityFields => ({
      lastSeenAt: isoOf(lastSeen[slot]!),
      lastPolledAt: isoOf(lastPolled[slot]!),
      deliveryMode: modes.at(deliveryMode[slot]!),
    }),
    /** A heartbeat or poll seen since the agent was set. */
    setSeen(slot: number, lastSeenAt: string | null, lastPolledAt: string | null): void {
      lastSeen[slot] = timeOf(lastSeenAt);
      lastPolled[slot] = timeOf(lastPolledAt);
    },

    /** Whether the agent passes a search's filters. */
    passes(slot: number, filter: AgentFilter): boolean {
      return (
        (!filter.category || has(slot, CATEGORY + filter.category)) &&
        (!filter.protocol || has(slot, PROTOCOL + filter.protocol)) &&
        (!filter.identityLevel || levels.at(identityLevel[slot]!) === filter.identityLevel) &&
        (!filter.capabilityTerm ||
          has(slot, TERM + filter.capabilityTerm) ||
          (filter.capabilitySlug !== undefined && has(slot, DECLARED + filter.capabilitySlug)))
      );
    },
    declaredAt: (slot: number): string[] => termsAt(slot, DECLARED),
    /** Everything, copied as arrays (later changes do not reach them), for `restore` at another start. */
    snapshot(): Record<string, PackedArray> {
      const lists = terms.snapshot();
      const arrays: Record<string, PackedArray> = {
        strings: packJson({
          ids,
          names,
          provenKeys,
          restricted: [...restricted],
          terms: termOf,
          codes: { visibilities: visibilities.values(), listings: listings.values(), levels: levels.values(), modes: modes.values() },
        }),
        visibility,
        listing,
        ownerLimited,
        identityLevel,
        deliveryMode,
        lastSeen,
        lastPolled,
        textKeys,
        sentence,
        termData: lists.data,
        termStarts: lists.starts,
        termLengths: lists.lengths,
      };
      return Object.fromEntries(Object.entries(arrays).map(([name, array]) => [name, array.slice()]));
    },
    /** Takes the state `snapshot` gave (into empty columns). */
    restore(saved: Record<string, PackedArray>): void {
      const strings = unpackJson(saved.strings!) as {
        ids: (string | null)[];
        names: (string | null)[];
        provenKeys: (string | null)[];
        restricted: [number, { ownerId: string | null; orgId: string | null }][];
        terms: string[];
        codes: {
          visibilities: AgentRecord['visibility'][];
          listings: AgentRecord['listing']['state'][];
          levels: string[];
          modes: AgentRecord['deliveryMode'][];
        };
      };
      const typed = <T extends PackedArray>(name: string, kind: new (length: number) => T): T => {
        const array = saved[name];
        if (!(array instanceof kind) || array.length < strings.ids.length) throw new Error(`the saved agents' ${name} do not match them`);
        return array;
      };
      // Every array is checked before any is taken: a file that does not fit leaves the columns as they were.
      const arrays = {
        visibility: typed('visibility', Uint8Array),
        listing: typed('listing', Uint8Array),
        ownerLimited: typed('ownerLimited', Uint8Array),
        identityLevel: typed('identityLevel', Uint8Array),
        deliveryMode: typed('deliveryMode', Uint8Array),
        lastSeen: typed('lastSeen', Float64Array),
        lastPolled: typed('lastPolled', Float64Array),
        textKeys: typed('textKeys', Float64Array),
        sentence: typed('sentence', Uint8Array),
      };
      const termData = saved.termData;
      const termStarts = saved.termStarts;
      const termLengths = saved.termLengths;
      if (!(termData instanceof Int32Array && termStarts instanceof Uint32Array && termLengths instanceof Uint32Array))
        throw new Error("the saved agents' terms do not match them");
      ({ visibility, listing, ownerLimited, identityLevel, deliveryMode, lastSeen, lastPolled, textKeys, sentence } = arrays);
      terms.restore({ data: termData, starts: termStarts, lengths: termLengths });
      visibilities.restore(strings.codes.visibilities);
      listings.restore(strings.codes.listings);
      levels.restore(strings.codes.levels);
      modes.restore(strings.codes.modes);
      termIds.clear();
      termOf.length = 0;
      for (const term of strings.terms) termId(term);
      restricted.clear();
      for (const [slot, owner] of strings.restricted) restricted.set(slot, owner);
      ids.length = names.length = provenKeys.length = 0;
      slotOf.clear();
      strings.ids.forEach((id, slot) => {
        if (id === null) return;
        ids[slot] = id;
        slotOf.set(id, slot);
        names[slot] = strings.names[slot] ?? '';
        provenKeys[slot] = strings.provenKeys[slot] ?? null;
      });
    },
    categoriesAt: (slot: number): string[] => termsAt(slot, CATEGORY),
  };
}

export type AgentColumns = ReturnType<typeof createAgentColumns>;
