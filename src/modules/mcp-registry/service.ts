/**
 * The MCP Registry read API (`/v0.1`, the 2025-12-01 generic registry API): the public agents that
 * speak MCP at a remote endpoint, as server.json records, each version an agent was listed at.
 */
import { isIP } from 'node:net';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { createMcpRegistryStore, type ListedVersion } from './store.ts';

export const SERVER_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
/** This registry's own `_meta` member: how far the agent behind the server proved who it is (docs/registry.md, "Identity levels"). */
export const IDENTITY_META = 'io.agentry/identity';

/** What the registry says of an agent's identity now (an agent deleted since has none). */
export interface ServerIdentity {
  identityLevel: 'provisional' | 'none' | 'key' | 'domain';
  verifiedDomain: string | null;
  cardSignature: { kid: string; jku: string } | null;
}
const TEXT_LIMIT = 100;

/** At most `limit` code points, ending in an ellipsis when cut. */
function cut(text: string, limit: number): string {
  const points = [...text];
  return points.length <= limit ? text : `${points.slice(0, limit - 1).join('')}…`;
}

/** A URL's host when it is an IP address (IPv6 without its brackets), else null. */
function ipAddressOf(url: string): string | null {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

/**
 * `mcp.example.com` -> `com.example.mcp`: a host name as a reverse-DNS namespace. An IP address has
 * no domain order to reverse and stays as written (an IPv6 address's colons as hyphens).
 */
function namespaceOfHost(url: string): string {
  const address = ipAddressOf(url);
  if (address) return address.replace(/[^a-zA-Z0-9.]/g, '-');
  return new URL(url).hostname
    .replace(/[^a-zA-Z0-9.-]/g, '-')
    .split('.')
    .filter(Boolean)
    .reverse()
    .join('.');
}

/** The namespace of every server this registry names itself: PUBLIC_URL's host, reversed (an IP address as written). */
export const namespaceOf = (publicUrl: string): string => namespaceOfHost(publicUrl) || 'localhost';

/**
 * A server.json's own name stands when its namespace is the endpoint's domain reversed, or a parent
 * domain of it (`com.example/...` for `mcp.example.com`): the publisher controls that domain.
 */
export function ownNameStands(serverName: string, endpoint: string): boolean {
  const namespace = serverName.slice(0, serverName.indexOf('/')).toLowerCase();
  let host: string;
  let isAddress: boolean;
  try {
    host = namespaceOfHost(endpoint).toLowerCase();
    isAddress = ipAddressOf(endpoint) !== null;
  } catch {
    return false;
  }
  // An address has no parent domains: only the address itself is its namespace.
  return namespace !== '' && (host === namespace || (!isAddress && host.startsWith(`${namespace}.`)));
}

export interface ListQuery {
  cursor?: string;
  limit: number;
  search?: string;
  updated_since?: string;
  version?: string;
  include_deleted?: boolean;
}

const encodeCursor = (row: ListedVersion): string => Buffer.from(JSON.stringify([row.agentId, row.version])).toString('base64url');

function decodeCursor(cursor: string): { agentId: string; version: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string')
      return { agentId: value[0], version: value[1] };
  } catch {
    // Falls through to the one error below.
  }
  throw new AppError('BAD_REQUEST', 'cursor is not one this registry gave out', [{ path: '/querystring/cursor', message: 'is not a cursor' }]);
}

/**
 * The name an MCP server is listed under here: its own server.json name while that stands, else
 * `<namespace>/<slug>`. Names in this registry's own namespace are the registry's to give, by slug:
 * a server.json name there could be another agent's slug name, and a name must find one server.
 */
export function mcpServerNameOf(namespace: string, server: { serverName: string | null; endpoint: string; slug: string }): string {
  const { serverName } = server;
  const ownNamespace = serverName !== null && serverName.toLowerCase().startsWith(`${namespace.toLowerCase()}/`);
  return serverName !== null && !ownNamespace && ownNameStands(serverName, server.endpoint) ? serverName : `${namespace}/${server.slug}`;
}

export function createMcpRegistryService({
  db,
  publicUrl,
  identitiesOf,
}: {
  db: Db;
  publicUrl: string;
  /** The agents' identities now, by agent id; a version row is a snapshot, identity is the agent's current state. */
  identitiesOf(agentIds: string[]): Promise<Map<string, ServerIdentity>>;
}) {
  const store = createMcpRegistryStore(db);
  const namespace = namespaceOf(publicUrl);
  const serverName = (row: ListedVersion) => mcpServerNameOf(namespace, row);

  function serverResponse(row: ListedVersion, identities: Map<string, ServerIdentity>) {
    const identity = row.deleted ? undefined : identities.get(row.agentId);
    return {
      server: {
        $schema: SERVER_SCHEMA_URL,
        name: serverName(row),
        title: cut(row.name, TEXT_LIMIT),
        description: cut(row.description, TEXT_LIMIT),
        version: row.version,
        websiteUrl: `${publicUrl}/agents/${row.slug}`,
        remotes: [{ type: 'streamable-http' as const, url: row.endpoint }],
      },
      _meta: {
        [OFFICIAL_META]: {
          status: row.deleted ? ('deleted' as const) : ('active' as const),
          publishedAt: row.publishedAt,
          updatedAt: row.updatedAt,
          isLatest: row.isLatest,
        },
        ...(identity ? { [IDENTITY_META]: identity } : {}),
      },
    };
  }

  /**
   * The versions listed under `name`: a name in this registry's namespace is a slug's, any other a
   * server.json's own (a name that no longer stands finds nothing).
   */
  const identitiesFor = (rows: ListedVersion[]) => identitiesOf([...new Set(rows.filter((row) => !row.deleted).map((row) => row.agentId))]);

  async function versionsNamed(name: string): Promise<ListedVersion[]> {
    const prefix = `${namespace}/`;
    const rows = name.startsWith(prefix) ? await store.versionsOf({ slug: name.slice(prefix.length) }) : await store.versionsOf({ serverName: name });
    return rows.filter((row) => serverName(row) === name);
  }

  return {
    async list(query: ListQuery) {
      // A sync by time must see what was removed since, so it always includes deletions.
      const updatedSince = query.updated_since ? new Date(query.updated_since).toISOString() : null;
      const rows = await store.list({
        after: query.cursor ? decodeCursor(query.cursor) : null,
        limit: query.limit + 1,
        includeDeleted: query.include_deleted === true || updatedSince !== null,
        updatedSince,
        version: query.version ?? null,
        search: query.search ?? null,
        namePrefix: `${namespace}/`,
      });
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      const identities = await identitiesFor(page);
      return {
        servers: page.map((row) => serverResponse(row, identities)),
        metadata: { count: page.length, ...(rows.length > query.limit && last ? { nextCursor: encodeCursor(last) } : {}) },
      };
    },

    async versions(name: string, includeDeleted: boolean) {
      const rows = (await versionsNamed(name)).filter((row) => includeDeleted || !row.deleted);
      if (rows.length === 0) throw new AppError('NOT_FOUND', 'Server not found');
      const identities = await identitiesFor(rows);
      return { servers: rows.map((row) => serverResponse(row, identities)), metadata: { count: rows.length } };
    },

    async version(name: string, version: string, includeDeleted: boolean) {
      const rows = await versionsNamed(name);
      if (rows.length === 0) throw new AppError('NOT_FOUND', 'Server not found');
      const row = rows.find((r) => (version === 'latest' ? r.isLatest : r.version === version));
      if (!row || (row.deleted && !includeDeleted)) throw new AppError('NOT_FOUND', 'Server version not found');
      return serverResponse(row, await identitiesFor([row]));
    },
  };
}

export type McpRegistryService = ReturnType<typeof createMcpRegistryService>;
