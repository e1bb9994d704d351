import { AgentCard } from '@a2a-js/sdk';
import type { FastifyInstance } from 'fastify';
import { ed25519Jwk, signCard } from '../../lib/card-jws.ts';
import { A2A_VERSION } from './front-door.ts';
import { A2A_PATH } from './routes.ts';

/**
 * The service describes itself to A2A clients: what it can do for them (find agents, route a task),
 * how to authenticate, and its own A2A endpoint, where a message becomes a routed task (docs/a2a.md).
 */
export function serviceAgentCard(publicUrl: string, version: string): AgentCard {
  const base = publicUrl.replace(/\/+$/, '');
  const bearer = {
    scheme: {
      $case: 'httpAuthSecurityScheme' as const,
      value: { description: 'A session token or an API key issued by this service', scheme: 'Bearer', bearerFormat: '' },
    },
  };
  return {
    name: 'Agentry',
    description: 'A registry and trust layer for software agents: finds the agent that fits a piece of work and routes tasks to it.',
    supportedInterfaces: [{ url: `${base}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_VERSION }],
    provider: { organization: 'Agentry', url: base },
    version,
    documentationUrl: `${base}/docs`,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: { bearer },
    // The A2A endpoint takes the same credential as /v1.
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'find-agents',
        name: 'Find agents',
        description: `Search registered agents by what they do, ranked by relevance, trust and availability (GET ${base}/v1/discover?q=..., or the MCP tool search_agents at ${base}/mcp). No credential needed.`,
        tags: ['discovery', 'search', 'registry', 'trust'],
        examples: ['Find an agent that translates legal contracts from German', 'Which agents can summarise PDFs?'],
        inputModes: ['text/plain'],
        outputModes: ['application/json'],
        securityRequirements: [],
      },
      {
        id: 'route-task',
        name: 'Route a task',
        description: `Submit work in plain language or as structured input; the best agent you may use receives it and its result comes back. Send it as an A2A message to this card's interface (text parts: the description; a data part: the input; metadata may name agentId or capabilities), or POST ${base}/v1/tasks, or the MCP tool submit_task at ${base}/mcp. Needs a credential.`,
        tags: ['tasks', 'routing', 'delegation'],
        examples: ['Summarise this 40-page report into a one-page brief'],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['application/json'],
        securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      },
    ],
    signatures: [],
  };
}

/** Where the service publishes the key its card is signed with (a JWK Set, RFC 7517). */
export const JWKS_PATH = '/.well-known/jwks.json';

/**
 * The service's card signed with the instance's Ed25519 key (the one its logs sign with), as A2A 1.0
 * has it: the protected header names the key by its RFC 7638 thumbprint (`kid`) in the JWK Set at
 * JWKS_PATH (`jku`).
 */
export function signedServiceAgentCard(publicUrl: string, version: string, seed: Uint8Array): AgentCard {
  const { thumbprint } = ed25519Jwk(seed);
  const json = AgentCard.toJSON(serviceAgentCard(publicUrl, version)) as Record<string, unknown>;
  return AgentCard.fromJSON(signCard(json, seed, { kid: thumbprint, jku: `${publicUrl.replace(/\/+$/, '')}${JWKS_PATH}` }));
}

export function registerAgentCardRoute(app: FastifyInstance, options: { publicUrl: string; version: string; signingSeed: Uint8Array }): void {
  const body = AgentCard.toJSON(signedServiceAgentCard(options.publicUrl, options.version, options.signingSeed));
  const { jwk, thumbprint } = ed25519Jwk(options.signingSeed);
  const keys = { keys: [{ ...jwk, kid: thumbprint, alg: 'EdDSA', use: 'sig' }] };
  app.get('/.well-known/agent-card.json', {
    config: { auth: 'none' },
    schema: { hide: true },
    handler: async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(body),
  });
  app.get(JWKS_PATH, {
    config: { auth: 'none' },
    schema: { hide: true },
    handler: async (_request, reply) => reply.header('cache-control', 'public, max-age=300').type('application/jwk-set+json').send(keys),
  });
}
