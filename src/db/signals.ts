/**
 * A small signal bus: "something changed, look again". Caches drop entries on it and long polls
 * wake on it. On SQLite one process owns the database, so signals stay in the process; on
 * PostgreSQL several nodes share the database, so they travel by LISTEN/NOTIFY.
 *
 * Signals carry no data of record: a listener that misses one (a node restarting, a connection
 * lost) must still be correct, only later. Listeners on RESYNC_CHANNEL hear when signals may
 * have been missed and should forget whatever they derived from earlier ones.
 */
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { dialectOf } from './dialect.ts';

/** How long close waits for statements still queued on the connection. */
const CLOSE_WAIT_MS = 1000;

export interface Signals {
  /** Listeners in this process hear it at once; other nodes as soon as the database relays it. */
  publish(channel: string, payload: string): Promise<void>;
  subscribe(channel: string, listener: (payload: string) => void): () => void;
  close(): Promise<void>;
}

/** Heard (payload '') when the link to other nodes was lost or restored: signals may have been missed. */
export const RESYNC_CHANNEL = 'signals.resync';

type Listener = (payload: string) => void;
type ErrorReporter = (error: unknown) => void;

const channelPattern = /^[A-Za-z0-9_.:-]{1,40}$/;
// pg_notify refuses payloads of 8000 bytes or more; the same limit on SQLite keeps code portable.
const MAX_PAYLOAD_BYTES = 7999;

function checkSignal(channel: string, payload: string): void {
  if (!channelPattern.test(channel)) throw new Error(`invalid signal channel "${channel}"`);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new Error(`signal payload over ${MAX_PAYLOAD_BYTES} bytes on "${channel}"`);
}

class ListenerRegistry {
  private readonly byChannel = new Map<string, Set<Listener>>();
  constructor(private readonly onError: ErrorReporter) {}

  channels(): IterableIterator<string> {
    return this.byChannel.keys();
  }

  /** Returns whether this is the channel's first listener. */
  add(channel: string, listener: Listener): boolean {
    const existing = this.byChannel.get(channel);
    if (existing) {
      existing.add(listener);
      return false;
    }
    this.byChannel.set(channel, new Set([listener]));
    return true;
  }

  /** Returns whether the channel has no listener left. */
  remove(channel: string, listener: Listener): boolean {
    const listeners = this.byChannel.get(channel);
    if (!listeners?.delete(listener) || listeners.size > 0) return false;
    this.byChannel.delete(channel);
    return true;
  }

  deliver(channel: string, payload: string): void {
    const listeners = this.byChannel.get(channel);
    if (!listeners) return;
    // A listener that throws must not keep the others from hearing the signal.
    for (const listener of [...listeners]) {
      try {
        listener(payload);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}

/** For a single process: delivery is synchronous, inside publish(). */
export function createLocalSignals(onError: ErrorReporter = () => {}): Signals {
  const listeners = new ListenerRegistry(onError);
  return {
    async publish(channel, payload) {
      checkSignal(channel, payload);
      listeners.deliver(channel, payload);
    },
    subscribe(channel, listener) {
      checkSignal(channel, '');
      listeners.add(channel, listener);
      return () => void listeners.remove(channel, listener);
    },
    async close() {},
  };
}

export interface PostgresSignalsOptions {
  url: string;
  /**
   * NOTIFY reaches every session of the database; apps in different schemas of one database
   * (tests) prefix their channels with it so they do not hear each other.
   */
  namespace?: string;
  onError?: ErrorReporter;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  reconnectDelayMs?: { min: number; max: number };
}

/**
 * One dedicated connection LISTENs on every subscribed channel and sends NOTIFYs. Local
 * listeners hear a publish at once; the copy the database echoes back to this same connection
 * is recognised by its backend pid and skipped, so nobody hears a signal twice. A lost
 * connection is re-opened with backoff, its channels listened to again, and RESYNC_CHANNEL
 * heard on loss and on return.
 */
export async function createPostgresSignals(options: PostgresSignalsOptions): Promise<Signals> {
  const onError = options.onError ?? (() => {});
  const listeners = new ListenerRegistry(onError);
  const prefix = options.namespace ? `${options.namespace}.` : '';
  const delays = options.reconnectDelayMs ?? { min: 100, max: 5000 };
  const wireName = (channel: string) => {
    const name = prefix + channel;
    // PostgreSQL channel names are identifiers: longer ones would be truncated or refused.
    if (Buffer.byteLength(name) > 63) throw new Error(`signal channel "${name}" is longer than 63 bytes`);
    return name;
  };
  const quoted = (channel: string) => pg.escapeIdentifier(wireName(channel));

  let live: pg.Client | null = null;
  // pg wants one query at a time per client: LISTENs and NOTIFYs on the live client queue here.
  let queue: Promise<unknown> = Promise.resolve();
  const run = (client: pg.Client, text: string, values?: unknown[]) => {
    const result = queue.then(() => client.query(text, values));
    queue = result.catch(() => {});
    return result;
  };
  // Signals published while a NOTIFY statement is on its way wait for it and go together in the
  // next one: one round trip and one commit however many are published at once. (A transaction
  // that notifies takes a database-wide lock at commit, held through the WAL flush.)
  let gathering: { channels: string[]; payloads: string[]; sent: Promise<unknown> } | null = null;
  let notifying: Promise<unknown> = Promise.resolve();
  const notify = (name: string, payload: string): Promise<unknown> => {
    if (!gathering) {
      const channels: string[] = [];
      const payloads: string[] = [];
      const sent = notifying.then(() => {
        gathering = null;
        if (!live) throw new Error(`signals on ${[...new Set(channels)].join(', ')} not sent to other nodes: not connected to PostgreSQL`);
        return run(live, 'SELECT pg_notify(channel, payload) FROM unnest($1::text[], $2::text[]) AS signal (channel, payload)', [channels, payloads]);
      });
      notifying = sent.catch(() => {});
      gathering = { channels, payloads, sent };
    }
    gathering.channels.push(name);
    gathering.payloads.push(payload);
    return gathering.sent;
  };
  let closed = false;
  let retryTimer: NodeJS.Timeout | null = null;
  let nextDelay = delays.min;

  async function connect(): Promise<void> {
    const client = new pg.Client({ connectionString: options.url, application_name: options.applicationName ?? 'agentry-signals' });
    let ownPid = -1;
    client.on('notification', (message) => {
      if (message.processId === ownPid || !message.channel.startsWith(prefix)) return;
      listeners.deliver(message.channel.slice(prefix.length), message.payload ?? '');
    });
    client.on('error', (error) => lost(client, error));
    client.on('end', () => lost(client, null));
    try {
      await client.connect();
      ownPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      // Map iteration sees channels subscribed while this loop awaits, so none is left unlistened.
      for (const channel of listeners.channels()) await client.query(`LISTEN ${quoted(channel)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      throw error;
    }
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    live = client;
    queue = Promise.resolve();
    nextDelay = delays.min;
  }

  function lost(client: pg.Client, error: Error | null): void {
    if (closed || live !== client) return;
    live = null;
    if (error) onError(error);
    client.removeAllListeners('end');
    void client.end().catch(() => {});
    listeners.deliver(RESYNC_CHANNEL, '');
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connect().then(
        () => {
          if (live) listeners.deliver(RESYNC_CHANNEL, '');
        },
        (error: unknown) => {
          onError(error);
          nextDelay = Math.min(nextDelay * 2, delays.max);
          scheduleReconnect();
        },
      );
    }, nextDelay);
    retryTimer.unref();
  }

  await connect();

  return {
    async publish(channel, payload) {
      checkSignal(channel, payload);
      const name = wireName(channel);
      listeners.deliver(channel, payload);
      if (!live) throw new Error(`signal "${channel}" not sent to other nodes: not connected to PostgreSQL`);
      await notify(name, payload);
    },
    subscribe(channel, listener) {
      checkSignal(channel, '');
      wireName(channel);
      if (listeners.add(channel, listener) && live) run(live, `LISTEN ${quoted(channel)}`).catch(onError);
      return () => {
        if (listeners.remove(channel, listener) && live) run(live, `UNLISTEN ${quoted(channel)}`).catch(onError);
      };
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const client = live;
      if (client) {
        // Signals gathered and statements still queued (an UNLISTEN from a cache closing just
        // before) finish first: ended under them, each would fail with "Connection terminated" and
        // be reported. A connection that never answers holds shutdown up for a second at most.
        await Promise.race([notifying.then(() => queue), delay(CLOSE_WAIT_MS, undefined, { ref: false })]);
      }
      live = null;
      if (client) {
        client.removeAllListeners('end');
        await client.end().catch(() => {});
      }
    },
  };
}

/** The bus for a database URL: in-process on SQLite, LISTEN/NOTIFY on PostgreSQL. */
export async function openSignals(options: { url: string; schema?: string; onError?: ErrorReporter }): Promise<Signals> {
  if (dialectOf(options.url) === 'sqlite') return createLocalSignals(options.onError);
  return createPostgresSignals({
    url: options.url,
    ...(options.schema && options.schema !== 'public' ? { namespace: options.schema } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
}
