import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { containsPattern } from '../../db/like.ts';
import { ownTables } from '../../db/tables.ts';
import type { AgentMcpVersionsReadModel, AgentMcpVersionsTable } from '../registry/index.ts';

export interface ListedVersion {
  agentId: string;
  version: string;
  serverName: string | null;
  slug: string;
  name: string;
  description: string;
  endpoint: string;
  publishedAt: string;
  updatedAt: string;
  isLatest: boolean;
  deleted: boolean;
}

export interface VersionFilter {
  /** After this (agent id, version) in the listing's order. */
  after: { agentId: string; version: string } | null;
  limit: number;
  includeDeleted: boolean;
  updatedSince: string | null;
  /** 'latest', an exact version, or null for every version. */
  version: string | null;
  /** A substring of the server name, matched without regard to case against `namePrefix` + slug. */
  search: string | null;
  namePrefix: string;
}

const listed = (row: AgentMcpVersionsTable): ListedVersion => ({
  agentId: row.agent_id,
  version: row.version,
  serverName: row.server_name,
  slug: row.slug,
  name: row.name,
  description: row.description,
  endpoint: row.endpoint,
  publishedAt: row.published_at,
  updatedAt: row.updated_at,
  isLatest: Number(row.is_latest) === 1,
  deleted: Number(row.deleted) === 1,
});

export function createMcpRegistryStore(database: Db) {
  const db = ownTables<AgentMcpVersionsReadModel>(database);
  return {
    async list(filter: VersionFilter): Promise<ListedVersion[]> {
      let query = db.selectFrom('agent_mcp_versions').selectAll();
      const { after } = filter;
      if (after)
        query = query.where((eb) =>
          eb.or([eb('agent_id', '>', after.agentId), eb.and([eb('agent_id', '=', after.agentId), eb('version', '>', after.version)])]),
        );
      if (!filter.includeDeleted) query = query.where('deleted', '=', 0);
      if (filter.updatedSince) query = query.where('updated_at', '>', filter.updatedSince);
      if (filter.version === 'latest') query = query.where('is_latest', '=', 1);
      else if (filter.version !== null) query = query.where('version', '=', filter.version);
      if (filter.search) {
        const pattern = containsPattern(filter.search);
        query = query.where(sql<boolean>`(lower(${filter.namePrefix} || slug) like ${pattern} escape '\\' or lower(server_name) like ${pattern} escape '\\')`);
      }
      const rows = await query.orderBy('agent_id').orderBy('version').limit(filter.limit).execute();
      return rows.map(listed);
    },

    /**
     * Every version of the agent listed under a name (its slug, or its own server.json name) now or,
     * gone, most recently; newest first.
     */
    async versionsOf(by: { slug: string } | { serverName: string }): Promise<ListedVersion[]> {
      const owner = await db
        .selectFrom('agent_mcp_versions')
        .select('agent_id')
        .where((eb) => ('slug' in by ? eb('slug', '=', by.slug) : eb('server_name', '=', by.serverName)))
        .orderBy('deleted')
        .orderBy('updated_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!owner) return [];
      const rows = await db
        .selectFrom('agent_mcp_versions')
        .selectAll()
        .where('agent_id', '=', owner.agent_id)
        .orderBy('published_at', 'desc')
        .orderBy('version', 'desc')
        .execute();
      return rows.map(listed);
    },
  };
}

export type McpRegistryStore = ReturnType<typeof createMcpRegistryStore>;
