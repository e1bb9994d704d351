/**
 * Following timelines: for a reader (and topic), the newest posts of the accounts and topics they
 * follow, as ids with their times and topics, newest first, kept by each node so a following feed
 * page costs no merge over every followed account. A timeline is exact until one of those accounts
 * posts or deletes, a post in one of those topics is added or removed, or the reader follows or
 * unfollows someone or a topic; then it is dropped at once on the node that wrote, and on the
 * others when the signal reaches them. A timeline is never served older than
 * `maxAgeMs`, which bounds how late a lost signal can show.
 */
import { RESYNC_CHANNEL, type Signals } from '../../db/signals.ts';
import type { Clock } from '../../lib/clock.ts';
import type { FeedEntry } from './feed-store.ts';

/** Payload: comma-separated profile ids whose posts were added or removed. */
export const AUTHORS_CHANNEL = 'social.authors';
/** Payload: comma-separated topics of posts that were added or removed. */
export const TOPICS_CHANNEL = 'social.topics';
/** Payload: the profile id that followed or unfollowed someone or a topic. */
export const FOLLOWER_CHANNEL = 'social.follower';
/** A signal's payload stays under PostgreSQL's 8000 bytes: this many 36-character ids and commas. */
const IDS_PER_SIGNAL = 200;
/** Timelines are loaded in steps of this many posts, up to MAX_ENTRIES; deeper pages read the database. */
const LOAD_STEP = 50;
const MAX_ENTRIES = 500;

interface Timeline {
  /** Changes with every load, so what was derived from one timeline can be told from the next. */
  version: number;
  readerId: string;
  followees: ReadonlySet<string>;
  topics: ReadonlySet<string>;
  /** Newest first, with no time bound: pinned pages skip the newer ones. */
  entries: readonly FeedEntry[];
  /** Whether `entries` holds every post there is, not only the newest. */
  complete: boolean;
  expiresAt: number;
}

/** A load in flight, told of every change meanwhile: what it read is not kept if a change may be missing from it. */
interface Load {
  readerId: string;
  size: number;
  stale: boolean;
  authors: Set<string>;
  topics: Set<string>;
}

export interface TimelineSource {
  followees(readerId: string): Promise<string[]>;
  followedTopics(readerId: string): Promise<string[]>;
  /** The newest `limit` posts of the reader's followees and followed topics on `topic` (any topic when undefined). */
  newest(readerId: string, topic: string | undefined, limit: number): Promise<FeedEntry[]>;
}

export interface TimelinesOptions {
  clock: Clock;
  signals: Signals;
  source: TimelineSource;
  /** 0 keeps nothing: every page reads the database. */
  maxAgeMs: number;
  maxTimelines?: number;
  /** A signal that could not be sent to other nodes. */
  onError?: (error: unknown) => void;
}

export function createTimelines({ clock, signals, source, maxAgeMs, maxTimelines = 2000, onError = () => {} }: TimelinesOptions) {
  const timelines = new Map<string, Timeline>();
  /** Loads in flight by key; readers who arrive meanwhile share one, until a change may be missing from it. */
  const loads = new Map<string, { load: Load; timeline: Promise<Timeline> }>();
  const keyOf = (readerId: string, topic: string | undefined) => `${readerId}:${topic ?? ''}`;
  let versions = 0;

  function dropPosts(authorIds: readonly string[], topics: readonly string[]): void {
    for (const [key, timeline] of timelines)
      if (authorIds.some((id) => timeline.followees.has(id)) || topics.some((topic) => timeline.topics.has(topic))) timelines.delete(key);
    // Whom a load in flight follows is not known yet: none is shared any more, each checks when it ends.
    for (const { load } of loads.values()) {
      for (const id of authorIds) load.authors.add(id);
      for (const topic of topics) load.topics.add(topic);
    }
    loads.clear();
  }

  function dropReader(readerId: string): void {
    for (const [key, timeline] of timelines) if (timeline.readerId === readerId) timelines.delete(key);
    for (const [key, { load }] of loads) {
      if (load.readerId !== readerId) continue;
      load.stale = true;
      loads.delete(key);
    }
  }

  function dropAll(): void {
    timelines.clear();
    for (const { load } of loads.values()) load.stale = true;
    loads.clear();
  }

  // This node drops its own timelines when it records a change, so the local echo of its signal is skipped.
  let sending = false;
  signals.subscribe(AUTHORS_CHANNEL, (payload) => {
    if (!sending) dropPosts(payload.split(','), []);
  });
  signals.subscribe(TOPICS_CHANNEL, (payload) => {
    if (!sending) dropPosts([], payload.split(','));
  });
  signals.subscribe(FOLLOWER_CHANNEL, dropReader);
  signals.subscribe(RESYNC_CHANNEL, dropAll);

  // Authors and topics whose posts changed in one turn of the event loop go to other nodes in one signal each.
  let unsent = new Set<string>();
  let unsentTopics = new Set<string>();
  function publishQuietly(channel: string, payload: string): void {
    sending = true;
    try {
      // publish() tells local listeners before it returns, so `sending` covers the echo.
      signals.publish(channel, payload).catch(onError);
    } finally {
      sending = false;
    }
  }
  function sendChanges(): void {
    const ids = [...unsent];
    const topics = [...unsentTopics];
    unsent = new Set();
    unsentTopics = new Set();
    for (let i = 0; i < ids.length; i += IDS_PER_SIGNAL) publishQuietly(AUTHORS_CHANNEL, ids.slice(i, i + IDS_PER_SIGNAL).join(','));
    // Topic slugs are few and short: every one fits in one signal.
    if (topics.length > 0) publishQuietly(TOPICS_CHANNEL, topics.join(','));
  }

  async function read(key: string, load: Load, topic: string | undefined): Promise<Timeline> {
    try {
      const [followees, followedTopics, entries] = await Promise.all([
        source.followees(load.readerId),
        source.followedTopics(load.readerId),
        source.newest(load.readerId, topic, load.size),
      ]);
      const timeline: Timeline = {
        version: ++versions,
        readerId: load.readerId,
        followees: new Set(followees),
        topics: new Set(followedTopics),
        entries,
        complete: entries.length < load.size,
        expiresAt: clock.now().getTime() + maxAgeMs,
      };
      const changed = load.stale || [...load.authors].some((id) => timeline.followees.has(id)) || [...load.topics].some((t) => timeline.topics.has(t));
      if (!changed && maxAgeMs > 0) {
        timelines.delete(key);
        // Oldest first out: a Map iterates in insertion order.
        if (timelines.size >= maxTimelines) timelines.delete(timelines.keys().next().value!);
        timelines.set(key, timeline);
      }
      return timeline;
    } finally {
      if (loads.get(key)?.load === load) loads.delete(key);
    }
  }

  return {
    /**
     * Ids of the posts at `offset` and after, up to `count`, created at `until` or before, newest
     * first, with the version of the timeline they come from (the same version, the same ids); null
     * when the page lies deeper than a timeline keeps (the caller reads the database).
     */
    async page(readerId: string, topic: string | undefined, until: string, offset: number, count: number): Promise<{ ids: string[]; version: string } | null> {
      const needed = offset + count;
      const answer = (timeline: Timeline) => {
        // Posts newer than `until` are a prefix of the entries; skipping them leaves the page's own.
        let start = 0;
        while (start < timeline.entries.length && timeline.entries[start]!.created_at > until) start++;
        if (!timeline.complete && timeline.entries.length - start < needed) return null;
        return { ids: timeline.entries.slice(start + offset, start + needed).map((entry) => entry.id), version: `${timeline.version}:${start}` };
      };
      const key = keyOf(readerId, topic);
      const kept = timelines.get(key);
      const live = kept && clock.now().getTime() < kept.expiresAt ? kept : undefined;
      const ids = live && answer(live);
      if (ids) return ids;
      // A kept timeline too short for this page is loaded again, longer.
      const size = Math.ceil((needed + (live?.entries.length ?? 0)) / LOAD_STEP) * LOAD_STEP;
      if (size > MAX_ENTRIES) return null;
      let shared = loads.get(key);
      if (!shared || shared.load.size < size) {
        const load: Load = { readerId, size, stale: false, authors: new Set(), topics: new Set() };
        shared = { load, timeline: read(key, load, topic) };
        loads.set(key, shared);
      }
      return answer(await shared.timeline);
    },

    /** After posts of these authors, in these topics, were added or removed (committed). */
    postsChanged(authorIds: readonly string[], topics: readonly string[]): void {
      dropPosts(authorIds, topics);
      if (unsent.size === 0 && unsentTopics.size === 0) setImmediate(sendChanges);
      for (const id of authorIds) unsent.add(id);
      for (const topic of topics) unsentTopics.add(topic);
    },

    /** After the reader followed or unfollowed someone or a topic (committed). */
    followerChanged(readerId: string): Promise<void> {
      return signals.publish(FOLLOWER_CHANNEL, readerId).catch(onError);
    },
  };
}

export type Timelines = ReturnType<typeof createTimelines>;
