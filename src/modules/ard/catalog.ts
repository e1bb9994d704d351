/**
 * Agents as AI Catalog entries (the `catalogEntry` of the ARD specification's ai-catalog schema):
 * A2A agents by the card they were registered from, MCP agents by their record in this registry's
 * MCP Registry API, every other agent inline.
 */
import { mcpServerNameOf, namespaceOf } from '../mcp-registry/index.ts';
import { identityLevelOf, type AgentRecord } from '../registry/index.ts';

export const A2A_CARD_TYPE = 'application/a2a-agent-card+json';
export const MCP_SERVER_TYPE = 'application/mcp-server-card+json';
export const AGENTRY_AGENT_TYPE = 'application/vnd.agentry.agent+json';
export const CATALOG_TYPE = 'application/ai-catalog+json';
/** ARD's representativeQueries hold 2 to 5. */
const REPRESENTATIVE_QUERIES = 5;

export interface CatalogEntry {
  identifier: string;
  displayName: string;
  type: string;
  url?: string;
  data?: Record<string, unknown>;
  description?: string;
  tags?: string[];
  capabilities?: string[];
  representativeQueries?: string[];
  version?: string;
  updatedAt?: string;
  metadata?: Record<string, string>;
}

export function createCatalog(publicUrl: string) {
  const host = new URL(publicUrl).hostname.replace(/[^a-zA-Z0-9.-]/g, '-') || 'localhost';
  const namespace = namespaceOf(publicUrl);
  const agentUrn = (slug: string) => `urn:air:${host}:agent:${slug}`;

  function reference(agent: AgentRecord): Pick<CatalogEntry, 'type' | 'url' | 'data'> {
    if (agent.protocols.includes('a2a') && agent.manifestUrl) return { type: A2A_CARD_TYPE, url: agent.manifestUrl };
    if (agent.protocols.includes('mcp') && agent.endpoint) {
      const name = mcpServerNameOf(namespace, { serverName: agent.mcpServerName, endpoint: agent.endpoint, slug: agent.slug });
      return { type: MCP_SERVER_TYPE, url: `${publicUrl}/v0.1/servers/${encodeURIComponent(name)}/versions/latest` };
    }
    return {
      type: AGENTRY_AGENT_TYPE,
      data: {
        name: agent.name,
        description: agent.description,
        endpoint: agent.endpoint,
        protocols: agent.protocols,
        capabilities: agent.capabilities,
        version: agent.version,
        page: `${publicUrl}/agents/${agent.slug}`,
        api: `${publicUrl}/v1/agents/${agent.id}`,
      },
    };
  }

  return {
    host,
    agentUrn,
    entryOf(agent: AgentRecord): CatalogEntry {
      return {
        identifier: agentUrn(agent.slug),
        displayName: agent.name,
        ...reference(agent),
        description: agent.description,
        ...(agent.tags.length > 0 ? { tags: agent.tags } : {}),
        ...(agent.capabilities.length > 0 ? { capabilities: agent.capabilities } : {}),
        ...(agent.examples.length >= 2 ? { representativeQueries: agent.examples.slice(0, REPRESENTATIVE_QUERIES) } : {}),
        version: agent.version,
        updatedAt: agent.updatedAt,
        metadata: {
          slug: agent.slug,
          categories: agent.categories.join(','),
          protocols: agent.protocols.join(','),
          page: `${publicUrl}/agents/${agent.slug}`,
          identityLevel: identityLevelOf(agent),
          ...(agent.verifiedDomain !== null ? { verifiedDomain: agent.verifiedDomain } : {}),
          // The key its A2A card is signed with, when the card's signature verified at registration or refresh.
          ...(agent.cardSignature !== null ? { cardSignatureKid: agent.cardSignature.kid, cardSignatureJku: agent.cardSignature.jku } : {}),
        },
      };
    },
    /** A nested catalog: the next page of this one. */
    nextPageEntry(page: number): CatalogEntry {
      return {
        identifier: `urn:air:${host}:catalog:page-${page}`,
        displayName: `Agents, page ${page}`,
        type: CATALOG_TYPE,
        url: `${publicUrl}/ard/catalog/${page}`,
        description: 'More agents of this registry',
      };
    },
  };
}

export type Catalog = ReturnType<typeof createCatalog>;
