/**
 * The change feed for mirrors (GET /v1/agents/changes): every change of a public agent in a final
 * order, read from the trigger-written `agent_feed` (migration 0030). A page answers each agent it
 * names once, as it is now: in full while it is public, as a tombstone once it is deleted or no longer
 * public. Applying pages in order leaves a mirror equal to the registry's public agents.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { ownTables } from '../../db/tables.ts';
import { AppError } from '../../lib/errors.ts';
import type { AgentRecord } from './store.ts';
import type { RegistryTables } from './tables.ts';

/** Where a reader is: after the row (txid, seq). */
export interface FeedPosition {
  txid: number;
  seq: number;
}

interface FeedRow {
  seq: number;
  txid: number;
  agentId: string;
  public: boolean;
  at: string;
}

const START: FeedPosition = { txid: 0, seq: 0 };

/**
 * Cursors are signed: the position (txid and seq, 8 bytes each) and an HMAC-SHA256 of it under a key
 * derived from the service's secrets key (its first 16 bytes), in base64url. A reader can only resume
 * where a page of this service ended: a position made up or altered is refused, never read from.
 */
export function createFeedCursors(secretsKey: Buffer) {
  const key = createHmac('sha256', secretsKey).update('agentry agent-feed cursor').digest();
  const refuse = (message: string) => new AppError('BAD_REQUEST', `\`since\` ${message}`, [{ path: '/querystring/since', message }]);
  const notGiven = () => refuse('is not a cursor this feed gave out: pass the `next` of the previous page, or leave it out to start again');

  function encode(position: FeedPosition): string {
    const bytes = Buffer.alloc(32);
    bytes.writeBigUInt64BE(BigInt(position.txid), 0);
    bytes.writeBigUInt64BE(BigInt(position.seq), 8);
    createHmac('sha256', key).update(bytes.subarray(0, 16)).digest().copy(bytes, 16, 0, 16);
    return bytes.toString('base64url');
  }

  /** The cursor back to a position (none: the start); anything this service did not give out is a 400. */
  function decode(cursor: string | undefined): FeedPosition {
    if (cursor === undefined) return START;
    if (cursor === '') throw refuse('is empty: leave it out to read from the start, or pass the `next` of the previous page');
    if (!/^[A-Za-z0-9_-]{43}$/.test(cursor)) throw notGiven();
    const bytes = Buffer.from(cursor, 'base64url');
    const position = { txid: Number(bytes.readBigUInt64BE(0)), seq: Number(bytes.readBigUInt64BE(8)) };
    if (!Number.isSafeInteger(position.txid) || !Number.isSafeInteger(position.seq)) throw notGiven();
    // Compared as the whole cursor it would have given out, so no other spelling of the same bytes passes.
    const expected = Buffer.from(encode(position));
    if (!timingSafeEqual(expected, Buffer.from(cursor))) throw notGiven();
    return position;
  }

  return { encode, decode };
}

export type FeedCursors = ReturnType<typeof createFeedCursors>;

export function createFeedStore(database: Db, dialect: DialectName) {
  const db = ownTables<RegistryTables>(database);
  return {
    /**
     * Rows after `after`, oldest first. On PostgreSQL only rows of transactions older than every one
     * still running: a row written later always sorts after them, so nothing is ever skipped.
     */
    async after(after: FeedPosition, limit: number): Promise<FeedRow[]> {
      let query = db.selectFrom('agent_feed').select(['seq', 'txid', 'agent_id', 'public', 'at']);
      if (dialect === 'postgres') {
        query = query
          .where(sql<boolean>`(txid, seq) > (${after.txid}, ${after.seq})`)
          .where(sql<boolean>`txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`)
          .orderBy('txid')
          .orderBy('seq');
      } else {
        query = query.where('seq', '>', after.seq).orderBy('seq');
      }
      const rows = await query.limit(limit).execute();
      // PostgreSQL hands BIGINT values over as text.
      return rows.map((row) => ({ seq: Number(row.seq), txid: Number(row.txid), agentId: row.agent_id, public: row.public === 1, at: row.at }));
    },
  };
}

export type FeedStore = ReturnType<typeof createFeedStore>;

export type FeedChange<View> = { id: string; deleted: false; at: string; agent: View } | { id: string; deleted: true; at: string };

export interface FeedDeps<View> {
  feed: FeedStore;
  findMany(ids: string[]): Promise<AgentRecord[]>;
  view(agent: AgentRecord): View;
  cursors: FeedCursors;
}

export function createAgentFeed<View>({ feed, findMany, view, cursors }: FeedDeps<View>) {
  return {
    async changes(since: string | undefined, limit: number): Promise<{ data: FeedChange<View>[]; next: string; hasMore: boolean }> {
      const from = cursors.decode(since);
      const rows = await feed.after(from, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const next = cursors.encode(last ? { txid: last.txid, seq: last.seq } : from);
      // Each agent once, where it last changed in the page, as it is now.
      const lastRowOf = new Map(page.map((row) => [row.agentId, row]));
      const agents = new Map((await findMany([...lastRowOf.keys()])).map((agent) => [agent.id, agent]));
      const data: FeedChange<View>[] = [];
      for (const row of page) {
        if (lastRowOf.get(row.agentId) !== row) continue;
        const agent = agents.get(row.agentId);
        data.push(
          agent?.visibility === 'public' && agent.listing.state === 'listed'
            ? { id: row.agentId, deleted: false, at: agent.updatedAt, agent: view(agent) }
            : { id: row.agentId, deleted: true, at: row.at },
        );
      }
      return { data, next, hasMore: rows.length > limit };
    },
  };
}
