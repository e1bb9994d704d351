import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createPostgresSignals, RESYNC_CHANNEL, type Signals } from '../../src/db/signals.ts';
import { dialectUnderTest, otherNode, startTestApp, testDatabaseUrl, type TestApp } from '../helpers/app.ts';
import { afterQueuedCallbacks, waitFor } from '../helpers/wait.ts';

const eventually = (check: () => boolean, what: string) => waitFor(what, check);

/**
 * On PostgreSQL a subscription is live once its LISTEN has run on the bus's connection, a moment
 * after subscribe(). A publish is queued behind it on that connection, so once one returns, the
 * LISTEN has run.
 */
const listening = (bus: Signals) => bus.publish('test.fence', '');

/**
 * The database sends each connection its notifications, of every channel, in the order they were
 * sent. Once `bus` hears a marker `sender` published after some signal, it has heard that signal
 * too, if it ever will.
 */
async function heardEverythingBefore(bus: Signals, sender: Signals): Promise<void> {
  const marker = randomBytes(4).toString('hex');
  let heard = false;
  const stop = bus.subscribe('test.marker', (payload) => {
    if (payload === marker) heard = true;
  });
  try {
    await listening(bus);
    await sender.publish('test.marker', marker);
    await eventually(() => heard, 'the marker');
  } finally {
    stop();
  }
}

describe('signals', () => {
  let app: TestApp;
  let other: TestApp;
  /** Another node on the same database: its own bus on PostgreSQL; on SQLite one process owns the file, so the same bus. */
  let otherBus: Signals;
  const opened: Signals[] = [];
  before(async () => {
    app = await startTestApp();
    other = await otherNode(app);
    otherBus = other.signals;
  });
  after(async () => {
    for (const bus of opened) await bus.close();
    await other.close();
    await app.close();
  });

  it('delivers to this node at once, exactly once, and not after unsubscribing', async () => {
    const heard: string[] = [];
    const stop = app.signals.subscribe('test.local', (payload) => heard.push(payload));
    await listening(app.signals);
    const publishing = app.signals.publish('test.local', 'one');
    assert.deepEqual(heard, ['one'], 'heard before publish() settles');
    await publishing;
    // The database echoes the signal back to this node's own connection; that copy must not be heard again.
    await heardEverythingBefore(app.signals, otherBus);
    assert.deepEqual(heard, ['one']);
    stop();
    await app.signals.publish('test.local', 'two');
    await heardEverythingBefore(app.signals, otherBus);
    assert.deepEqual(heard, ['one']);
  });

  it('reaches another node on the same database, on the named channel only', async () => {
    const heard: string[] = [];
    const unrelated: string[] = [];
    otherBus.subscribe('test.remote', (payload) => heard.push(payload));
    otherBus.subscribe('test.unrelated', (payload) => unrelated.push(payload));
    await listening(otherBus);
    const big = 'x'.repeat(7999);
    await app.signals.publish('test.remote', 'revoked:123');
    await app.signals.publish('test.remote', big);
    await eventually(() => heard.length === 2, 'both signals heard by the other node');
    assert.deepEqual(heard, ['revoked:123', big]);
    assert.deepEqual(unrelated, []);
  });

  it('sends signals published at once to another node, each with its own payload, in order', async () => {
    const heard: string[] = [];
    otherBus.subscribe('test.together', (payload) => heard.push(payload));
    await listening(otherBus);
    // Payloads that a list of texts must carry unchanged: separators, quotes, escapes, the word NULL, nothing.
    const payloads = ['', 'a,b', '"quoted"', 'back\\slash', '{braces}', 'NULL', 'é ü', ...Array.from({ length: 40 }, (_, i) => `n${i}`)];
    await Promise.all(payloads.map((payload) => app.signals.publish('test.together', payload)));
    await eventually(() => heard.length === payloads.length, 'every signal heard by the other node');
    assert.deepEqual(heard, payloads);
  });

  it('keeps delivering to other listeners when one throws', async () => {
    const heard: string[] = [];
    app.signals.subscribe('test.throws', () => {
      throw new Error('listener bug');
    });
    app.signals.subscribe('test.throws', (payload) => heard.push(payload));
    await app.signals.publish('test.throws', 'still heard');
    assert.deepEqual(heard, ['still heard']);
  });

  it('refuses bad channel names and payloads of 8000 bytes or more', async () => {
    for (const channel of ['', 'has space', 'x'.repeat(41), 'semi;colon', 'quote"d']) {
      await assert.rejects(app.signals.publish(channel, 'x'), /invalid signal channel/);
      assert.throws(() => app.signals.subscribe(channel, () => {}), /invalid signal channel/);
    }
    await assert.rejects(app.signals.publish('test.big', 'x'.repeat(8000)), /payload over 7999 bytes/);
    await assert.rejects(app.signals.publish('test.big', 'é'.repeat(4000)), /payload over 7999 bytes/);
  });

  if (dialectUnderTest === 'postgres') {
    it('keeps apps in different schemas of one database apart', async () => {
      const strangers = `${app.databaseSchema}_other`;
      const stranger = await createPostgresSignals({ url: testDatabaseUrl!, namespace: strangers });
      const strangersOtherNode = await createPostgresSignals({ url: testDatabaseUrl!, namespace: strangers });
      opened.push(stranger, strangersOtherNode);
      const heardByStranger: string[] = [];
      const heardHere: string[] = [];
      stranger.subscribe('test.apart', (payload) => heardByStranger.push(payload));
      otherBus.subscribe('test.apart', (payload) => heardHere.push(payload));
      await listening(stranger);
      await listening(otherBus);
      await app.signals.publish('test.apart', 'mine');
      await eventually(() => heardHere.length === 1, 'signal heard in the same schema');
      await heardEverythingBefore(stranger, strangersOtherNode);
      assert.deepEqual(heardByStranger, []);
    });

    it('reconnects after losing its connection, listens again and tells RESYNC listeners', async () => {
      const applicationName = `signals-test-${randomBytes(4).toString('hex')}`;
      const namespace = app.databaseSchema!;
      const bus = await createPostgresSignals({ url: testDatabaseUrl!, namespace, applicationName, reconnectDelayMs: { min: 20, max: 100 } });
      opened.push(bus);
      let resyncs = 0;
      const heard: string[] = [];
      bus.subscribe(RESYNC_CHANNEL, () => resyncs++);
      bus.subscribe('test.reconnect', (payload) => heard.push(payload));

      const admin = new pg.Client({ connectionString: testDatabaseUrl! });
      await admin.connect();
      try {
        const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
        assert.equal(killed.rowCount, 1);
      } finally {
        await admin.end();
      }
      await eventually(() => resyncs === 2, 'RESYNC heard on loss and on return');
      await otherBus.publish('test.reconnect', 'after');
      await eventually(() => heard.length === 1, 'signal heard after reconnecting');
      assert.deepEqual(heard, ['after']);
    });

    it('closes without reporting the LISTEN and UNLISTEN still queued on its connection as errors', async () => {
      const errors: unknown[] = [];
      const bus = await createPostgresSignals({ url: testDatabaseUrl!, namespace: app.databaseSchema!, onError: (error) => errors.push(error) });
      // As at shutdown: caches unsubscribe, then the bus closes, in one turn.
      const unsubscribes = ['test.close.a', 'test.close.b', 'test.close.c'].map((channel) => bus.subscribe(channel, () => {}));
      for (const unsubscribe of unsubscribes) unsubscribe();
      await bus.close();
      // A statement cut off by the connection's end is failed on a later tick than close() returns on.
      await afterQueuedCallbacks();
      assert.deepEqual(errors, []);
    });
  }
});
