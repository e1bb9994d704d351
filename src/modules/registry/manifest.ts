/**
 * Reads what an agent already says about itself: an A2A agent card (v0.3 or v1.0) or an MCP
 * `server.json`, fetched through the SSRF-checked client (size, time and JSON nesting capped). A
 * registration takes from it the fields its request leaves out.
 */
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { AppError, badRequest } from '../../lib/errors.ts';
import { findCapability } from '../catalog/index.ts';
import { publicFailureReason, type OutboundClient } from '../../lib/outbound-http.ts';
import { parseStrictJson } from '../../lib/strict-json.ts';
import type { CardSignatureVerifier, VerifiedCardSignature } from './card-signature.ts';
import { EXAMPLES_MAX, EXAMPLES_MIN } from './schemas.ts';

export const importableFields = ['name', 'description', 'capabilities', 'tags', 'protocols', 'docsUrl', 'examples'] as const;
export type ImportableField = (typeof importableFields)[number];

export interface ManifestFields {
  name?: string;
  description?: string;
  /** Catalogue slugs that A2A skills' ids, names and tags name (through the catalogue's aliases). */
  capabilities?: string[];
  /** A2A skills' ids and tags that name no catalogue capability, as written. */
  tags?: string[];
  protocols?: ('a2a' | 'mcp')[];
  docsUrl?: string;
  /** A2A skills' `examples`: requests in users' words (2-10 of the valid ones, when there are 2). */
  examples?: string[];
  /** An MCP server.json's own `name` (`<reverse-DNS namespace>/<name>`), when it is one. */
  serverName?: string;
  /** An A2A card's verified signature (a card whose signature fails is refused). */
  cardSignature?: VerifiedCardSignature;
}

export interface ManifestImporter {
  /** The fields the manifest at `url` gives; a 400 naming why when it cannot be fetched or read. */
  load(url: string): Promise<ManifestFields>;
}

const NAME_MAX = 100;
/** The MCP Registry's pattern for server names. */
const SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const DESCRIPTION_MAX = 1000;
const TERM_MAX = 60;
const TERMS_MAX = 50;

const invalid = (why: string) => badRequest(`The manifest at manifestUrl ${why}`, [{ path: '/body/manifestUrl', message: why }]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
const clip = (value: string, max: number) => (value.length <= max ? value : `${value.slice(0, max - 1)}…`);

function httpUrl(value: unknown): string | undefined {
  const candidate = text(value);
  if (!candidate || candidate.length > 2048) return undefined;
  try {
    const url = new URL(candidate);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Distinct short terms, in order, compared without regard to case. */
function terms(values: unknown[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const value of values) {
    const term = text(value);
    if (!term || term.length > TERM_MAX) continue;
    const key = term.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(term);
    if (out.length === TERMS_MAX) break;
  }
  return out;
}

/** Skills' example requests that are valid examples (3-200 characters, no control characters), first ten distinct; none unless two. */
function examplesOf(phrases: unknown[]): { examples?: string[] } {
  const examples: string[] = [];
  for (const phrase of phrases) {
    const value = text(phrase);
    if (!value || [...value].length < 3 || [...value].length > 200 || /\p{Cc}/u.test(value) || examples.includes(value)) continue;
    examples.push(value);
    if (examples.length === EXAMPLES_MAX) break;
  }
  return examples.length >= EXAMPLES_MIN ? { examples } : {};
}

/**
 * A card's skills as capabilities: a skill's id, name or tag that the catalogue knows (by slug,
 * name or alias: "translate", "summarize", "ocr") becomes that capability's slug; the ids and tags
 * it does not know stay tags. A name the catalogue does not know is a label for people and is
 * dropped; examples are requests in users' words ("reverse hello") and never become a capability
 * or a tag (they have their own field).
 */
function capabilitiesOf(skills: { id?: unknown; name?: unknown; tags?: unknown[] }[]): { capabilities: string[]; tags: string[] } {
  const slugs: string[] = [];
  const others: unknown[] = [];
  for (const skill of skills) {
    for (const [term, keep] of [[skill.id, true], [skill.name, false], ...(skill.tags ?? []).map((tag) => [tag, true] as const)] as const) {
      const value = text(term);
      if (value === undefined) continue;
      const capability = findCapability(value);
      if (capability !== undefined) slugs.push(capability.slug);
      else if (keep) others.push(value);
    }
  }
  const capabilities = terms(slugs);
  const known = new Set(capabilities);
  return { capabilities, tags: terms(others).filter((tag) => !known.has(tag.toLowerCase())) };
}

function looksLikeAgentCard(json: Record<string, unknown>): boolean {
  return Array.isArray(json.skills) && ('supportedInterfaces' in json || 'url' in json || 'protocolVersion' in json || 'capabilities' in json);
}

function looksLikeMcpServer(json: Record<string, unknown>): boolean {
  const schema = typeof json.$schema === 'string' ? json.$schema : '';
  return schema.includes('server.schema.json') || ((Array.isArray(json.packages) || Array.isArray(json.remotes)) && typeof json.name === 'string');
}

function fromAgentCard(json: Record<string, unknown>): ManifestFields {
  let card;
  try {
    card = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).normalizeAgentCard(json);
  } catch (error) {
    throw invalid(`is not a valid A2A agent card (${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'})`);
  }
  const name = text(card.name);
  const description = text(card.description);
  if (!name) throw invalid('is an A2A agent card without a name');
  if (!description) throw invalid('is an A2A agent card without a description');
  const skills = Array.isArray(card.skills) ? card.skills : [];
  const { capabilities, tags } = capabilitiesOf(skills);
  const docsUrl = httpUrl(card.documentationUrl);
  return {
    name: clip(name, NAME_MAX),
    description: clip(description, DESCRIPTION_MAX),
    ...(capabilities.length > 0 ? { capabilities } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    protocols: ['a2a'],
    ...(docsUrl ? { docsUrl } : {}),
    ...examplesOf(skills.flatMap((skill) => skill.examples ?? [])),
  };
}

function fromMcpServer(json: Record<string, unknown>): ManifestFields {
  const name = text(json.title) ?? text(json.name);
  const description = text(json.description);
  if (!name) throw invalid('is an MCP server.json without a name');
  if (!description) throw invalid('is an MCP server.json without a description');
  const repository = isObject(json.repository) ? json.repository : {};
  const docsUrl = httpUrl(json.websiteUrl) ?? httpUrl(repository.url);
  const serverName = text(json.name);
  return {
    name: clip(name, NAME_MAX),
    description: clip(description, DESCRIPTION_MAX),
    protocols: ['mcp'],
    ...(docsUrl ? { docsUrl } : {}),
    ...(serverName && SERVER_NAME.test(serverName) && serverName.length <= 200 ? { serverName } : {}),
  };
}

/** Reads an already-fetched manifest body: the part that needs no network. */
export function readManifest(body: string): ManifestFields {
  return parseManifest(body).fields;
}

function parseManifest(body: string): { fields: ManifestFields; card: Record<string, unknown> | null } {
  let json: unknown;
  try {
    json = parseStrictJson(body);
  } catch (error) {
    throw invalid(`is not valid JSON (${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'})`);
  }
  if (!isObject(json)) throw invalid('is not a JSON object');
  if (looksLikeAgentCard(json)) return { fields: fromAgentCard(json), card: json };
  if (looksLikeMcpServer(json)) return { fields: fromMcpServer(json), card: null };
  throw invalid('is neither an A2A agent card (no skills) nor an MCP server.json (no packages or remotes)');
}

/** An A2A card whose signature does not verify: the registry will not take what it says. */
const badSignature = (problem: string) =>
  new AppError('UNPROCESSABLE', `The A2A card at manifestUrl is refused: its signature does not verify: ${problem}`, [
    { path: '/body/manifestUrl', message: `signature: ${problem}` },
  ]);

export function createManifestImporter(outbound: OutboundClient, signatures?: CardSignatureVerifier): ManifestImporter {
  return {
    async load(url) {
      const outcome = await outbound.send({
        url,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'Agentry-Manifests/1' },
        requireFullBody: true,
      });
      if (!outcome.ok) throw invalid(`could not be fetched: ${publicFailureReason(outcome.failure, 'the manifest URL', outcome.response)}`);
      const { fields, card } = parseManifest(outcome.response.body);
      if (!card || !signatures) return fields;
      const checked = await signatures.verify(card);
      if (!checked.ok) throw badSignature(checked.problem);
      return checked.signature ? { ...fields, cardSignature: checked.signature } : fields;
    },
  };
}
