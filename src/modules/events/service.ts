/**
 * Streams of an account's events (server-sent events): the status changes of the tasks module's log,
 * read and pruned through the tasks module (this module owns no table), and what a live source (the
 * social network's notifications and followed posts) adds; those carry no id and are not replayed. Each stream listens on the
 * `events` signal (raised after the commit by the node that made the change, with the account ids),
 * reads the account's new rows, and writes them out. A timer looks again now and then in case a
 * signal was lost; signals carry no data, the log is the record.
 */
import { PassThrough } from 'node:stream';
import { RESYNC_CHANNEL, type Signals } from '../../db/signals.ts';
import type { Principal } from '../../lib/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { accountsInEventsPayload, EVENTS_CHANNEL, type StatusEventsStore, type TaskStatusEvent } from '../tasks/index.ts';

/** Rows read per query; a stream behind by more reads again at once. */
const READ_BATCH = 200;
/** A stream looks again this often even unwoken: a backstop should a signal be lost. */
const RECHECK_MS = 5000;
/**
 * On PostgreSQL ids are handed out when a row is written but become visible at commit, so a lower id
 * can appear after a higher one was sent. A stream keeps reading from the oldest id it sent within
 * this window and skips what it already sent; a transaction open longer than this could be missed.
 */
const LATE_COMMIT_WINDOW_MS = 10_000;
/** A client that reads slower than events come is cut off past this much unsent data; it resumes by Last-Event-ID. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** What a browser waits before reconnecting after the stream ends. */
const RETRY_MS = 3000;

/** An event from another module, sent live without an id (a reconnecting client loads its data again). */
export interface LiveEvent {
  event: string;
  data: unknown;
}

/** What a stream watches besides the task log, for one account. */
export interface LiveWatch {
  /** Whether a signal on one of the source's channels may bring this account something. */
  concerns(channel: string, payload: string): boolean;
  /** A signal may have been lost: the next read looks at everything. */
  lookAgain(): void;
  /** What is new since the last read (since the stream opened, at first). */
  next(): Promise<LiveEvent[]>;
}

export interface LiveSource {
  channels: readonly string[];
  follow(accountId: string): Promise<LiveWatch>;
}

export interface EventsOptions {
  /** What the streams send, and what pruning trims past the retention. */
  log: StatusEventsStore;
  /** The social network's notifications and followed posts, woken by `events` and by `channels`. */
  live?: LiveSource;
  signals: Signals;
  clock: Clock;
  retentionMinutes: number;
  /** Streams of one person on a node: their sessions and keys, and the keys of their agents. */
  maxStreamsPerAccount: number;
  /** Streams from one client address on a node, whoever's. */
  maxStreamsPerAddress: number;
  heartbeatSeconds: number;
  /** How often pruning runs (default a minute). */
  pruneIntervalMs?: number;
  /**
   * Asked at each tick of the prune timer whether this node runs the pass (one node of those sharing
   * the database does: src/db/background-passes.ts); without it every tick runs one.
   */
  scheduledPrune?: () => Promise<boolean>;
  onError: (error: unknown) => void;
}

/** The connection a stream is sent on, as the route sees it. */
export interface StreamConnection {
  /** The client address, as rate limits count it. */
  address: string;
  /** Whether the credential that opened the stream still authenticates as the same account. */
  stillValid(): boolean | Promise<boolean>;
  /** Bytes written to the socket that it has not handed to the network yet. */
  socketBytes(): number;
}

export interface EventStream {
  /** The text/event-stream body. */
  body: PassThrough;
  /** Ends the stream and lets go of its listeners and timers (idempotent). */
  close(): void;
}

const frame = (fields: Record<string, string | number>): string =>
  `${Object.entries(fields)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n')}\n\n`;

/** A place a stream holds on this node, counted against its person and its client address. */
interface StreamSlot {
  /** Ends the stream holding the place: at once, or as soon as it is attached (the way to end a person's streams from outside). */
  end(): void;
  /** Attaches the stream's close, which releases the place. */
  attach(close: () => void): void;
  /** Gives the place back (idempotent). */
  release(): void;
}

/**
 * The streams open on this node, by person (sessions, keys and agents' keys together) and by client
 * address: every admission and release goes through here. A place is taken synchronously, before
 * the stream's first await, so streams opened at the same moment each see the ones before them.
 */
function createStreamSlots(limits: { perPerson: number; perAddress: number }) {
  const byPerson = new Map<string, Set<StreamSlot>>();
  const byAddress = new Map<string, Set<StreamSlot>>();
  const add = (map: Map<string, Set<StreamSlot>>, key: string, slot: StreamSlot) => {
    const held = map.get(key);
    if (held) held.add(slot);
    else map.set(key, new Set([slot]));
  };
  const remove = (map: Map<string, Set<StreamSlot>>, key: string, slot: StreamSlot) => {
    const held = map.get(key);
    if (!held) return;
    held.delete(slot);
    if (held.size === 0) map.delete(key);
  };
  return {
    /** Takes a place for a stream of `personId` from `address`; a stream that stays open (`capped`) is refused past the limits. */
    admit(personId: string, address: string, capped: boolean): StreamSlot {
      const mine = byPerson.get(personId)?.size ?? 0;
      const fromAddress = byAddress.get(address)?.size ?? 0;
      if (capped && mine >= limits.perPerson) {
        throw new AppError(
          'RATE_LIMITED',
          `This account (with its agents' keys) already has ${mine} open event streams on this server, the most allowed; close one first`,
        );
      }
      if (capped && fromAddress >= limits.perAddress) {
        throw new AppError('RATE_LIMITED', `Your address already has ${fromAddress} open event streams on this server, the most allowed; close one first`);
      }
      let released = false;
      let ended = false;
      let close: (() => void) | null = null;
      const slot: StreamSlot = {
        end() {
          ended = true;
          close?.();
        },
        attach(streamClose) {
          close = streamClose;
          if (ended) close();
        },
        release() {
          if (released) return;
          released = true;
          remove(byPerson, personId, slot);
          remove(byAddress, address, slot);
        },
      };
      add(byPerson, personId, slot);
      add(byAddress, address, slot);
      return slot;
    },
    count: (personId: string) => byPerson.get(personId)?.size ?? 0,
    total(): number {
      let total = 0;
      for (const held of byPerson.values()) total += held.size;
      return total;
    },
    /** Ends every stream on this node. */
    endAll(): void {
      for (const slot of [...byPerson.values()].flatMap((held) => [...held])) slot.end();
    },
  };
}

export function createEventsService(options: EventsOptions) {
  const { log, signals, clock } = options;
  const slots = createStreamSlots({ perPerson: options.maxStreamsPerAccount, perAddress: options.maxStreamsPerAddress });
  let pruneTimer: NodeJS.Timeout | null = null;
  /** Set by stop(): the node is shutting down, and a stream asked for now ends once caught up. */
  let stopped = false;
  let pruning: Promise<void> | null = null;
  let scheduling: Promise<void> | null = null;
  const scheduledPrune = options.scheduledPrune ?? (async () => true);

  /** Where a stream starts, and whether the client must reload instead of replaying. */
  async function startingPoint(lastEventId: string | undefined): Promise<{ cursor: number; reset: boolean }> {
    const latest = await log.latestId();
    if (lastEventId === undefined) return { cursor: latest, reset: false };
    const given = Number(lastEventId);
    // Older than what is kept, or from before the events were cleared: what came since is unknown.
    if (given < (await log.prunedThrough()) || given > latest) return { cursor: latest, reset: true };
    return { cursor: given, reset: false };
  }

  async function prunePass(): Promise<void> {
    const cutoff = new Date(clock.now().getTime() - options.retentionMinutes * 60_000).toISOString();
    while ((await log.prune(cutoff, 5000)) === 5000);
  }

  return {
    /**
     * Opens a stream of the principal's events: those after `lastEventId` first (or a `reset` event
     * when they are no longer kept), then, with `follow`, new ones as they happen.
     */
    async open(principal: Principal, lastEventId: string | undefined, follow: boolean, connection: StreamConnection): Promise<EventStream> {
      // Before any await: see createStreamSlots.
      const slot = slots.admit(principal.personId, connection.address, follow);
      try {
        return await openIn(slot, principal.accountId, lastEventId, follow, connection);
      } catch (error) {
        slot.release();
        throw error;
      }
    },

    /** Streams open on this node for a person, their agents' keys included (the per-account cap counts them). */
    openCount: slots.count,

    /** Streams open on this node, everyone's (the metrics). */
    openTotal: slots.total,

    /** Deletes events past the retention; runs once a minute on one of the nodes, and in tests on demand. */
    prune(): Promise<void> {
      pruning ??= prunePass()
        .catch(options.onError)
        .finally(() => (pruning = null));
      return pruning;
    },

    start(): void {
      pruneTimer = setInterval(() => {
        if (pruning || scheduling) return;
        scheduling = scheduledPrune()
          .then((mine) => (mine && pruneTimer ? this.prune() : undefined))
          .catch(options.onError)
          .finally(() => (scheduling = null));
      }, options.pruneIntervalMs ?? 60_000);
      pruneTimer.unref();
    },

    /** Ends every open stream, and any asked for from now on once caught up (shutdown): clients reconnect to another node and resume. */
    async stop(): Promise<void> {
      stopped = true;
      if (pruneTimer) clearInterval(pruneTimer);
      pruneTimer = null;
      slots.endAll();
      await scheduling;
      await pruning;
    },
  };

  /** The stream itself, in the place `slot` holds for it; closing it gives the place back. */
  async function openIn(
    slot: StreamSlot,
    accountId: string,
    lastEventId: string | undefined,
    follow: boolean,
    connection: StreamConnection,
  ): Promise<EventStream> {
    const { cursor, reset } = await startingPoint(lastEventId);
    const body = new PassThrough();
    let closed = false;
    let floor = cursor;
    /** Ids sent within the late-commit window, with when. */
    const recent = new Map<number, number>();
    // Everything written that the client has not taken yet, in the stream and in the socket.
    const unsent = () => body.writableLength + body.readableLength + connection.socketBytes();
    const write = (text: string) => {
      if (closed) return;
      body.write(text);
      if (unsent() > MAX_BUFFERED_BYTES) stream.close();
    };
    const send = (event: TaskStatusEvent) => {
      recent.set(event.id, Date.now());
      write(frame({ id: event.id, event: event.type, data: JSON.stringify(event.data) }));
    };

    const watch = follow && options.live ? await options.live.follow(accountId) : null;

    async function readNew(): Promise<void> {
      await readLog();
      if (watch && !closed) for (const item of await watch.next()) write(frame({ event: item.event, data: JSON.stringify(item.data) }));
    }

    async function readLog(): Promise<void> {
      for (;;) {
        const rows = await log.after(accountId, floor, READ_BATCH);
        for (const row of rows) if (!recent.has(row.id)) send(row);
        const settled = Date.now() - LATE_COMMIT_WINDOW_MS;
        for (const [id, sentAt] of recent) {
          if (sentAt > settled) continue;
          floor = Math.max(floor, id);
          recent.delete(id);
        }
        if (rows.length < READ_BATCH || closed) return;
        // A full batch of rows already sent: move on past them.
        floor = Math.max(floor, rows[rows.length - 1]!.id);
      }
    }

    // One read at a time; a wake during a read makes one more read after it.
    let reading: Promise<void> | null = null;
    let again = false;
    const wake = () => {
      if (closed) return;
      if (reading) {
        again = true;
        return;
      }
      reading = readNew()
        .catch(options.onError)
        .finally(() => {
          reading = null;
          if (again) {
            again = false;
            wake();
          }
        });
    };
    // Written as a function so the type checker does not take `reading` as still null after wake().
    const readsSettled = async () => {
      while (reading) await reading;
    };

    const unsubscribe = [
      signals.subscribe(EVENTS_CHANNEL, (payload) => {
        if (payload === '' || accountsInEventsPayload(payload).includes(accountId)) wake();
      }),
      signals.subscribe(RESYNC_CHANNEL, () => {
        watch?.lookAgain();
        wake();
      }),
      ...(watch && options.live
        ? options.live.channels.map((channel) =>
            signals.subscribe(channel, (payload) => {
              if (watch.concerns(channel, payload)) wake();
            }),
          )
        : []),
    ];
    let checkingCredential = false;
    const recheck = setInterval(() => {
      watch?.lookAgain();
      wake();
      if (checkingCredential) return;
      checkingCredential = true;
      Promise.resolve(connection.stillValid())
        .then((valid) => {
          if (!valid) stream.close();
        }, options.onError)
        .finally(() => (checkingCredential = false));
    }, RECHECK_MS);
    const heartbeat = setInterval(() => write(': keep-alive\n\n'), options.heartbeatSeconds * 1000);
    recheck.unref();
    heartbeat.unref();

    const stream: EventStream = {
      body,
      close() {
        if (closed) return;
        closed = true;
        for (const stop of unsubscribe) stop();
        clearInterval(recheck);
        clearInterval(heartbeat);
        slot.release();
        body.end();
      },
    };
    slot.attach(() => stream.close());

    // The id line sets the client's Last-Event-ID, so a reconnect resumes from here.
    write(`retry: ${RETRY_MS}\n`);
    write(
      reset
        ? frame({ id: cursor, event: 'reset', data: JSON.stringify({ reason: 'The events since that id are no longer kept; load the data again' }) })
        : frame({ id: cursor }),
    );
    if (!reset) {
      wake();
      await readsSettled();
    }
    // A stream asked for while the node shuts down sends what was missed and its retry hint, then
    // ends: the client reconnects, through the proxy to another node, and resumes from the id.
    if (!follow || stopped) stream.close();
    return stream;
  }
}

export type EventsService = ReturnType<typeof createEventsService>;
