import { Type, type Static } from '@sinclair/typebox';
import { literals, PageQuery } from '../../http/schemas.ts';
import { Agent, protocolValues } from '../registry/index.ts';
import { MAX_RESULTS } from './ranking.ts';

export const DiscoverQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 500, description: 'What you need, in your own words; omit to browse by trust and availability' })),
    category: Type.Optional(Type.String({ pattern: '^[a-z0-9-]{1,40}$' })),
    capability: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'A capability term; catalogue aliases match their capability' })),
    protocol: Type.Optional(literals(protocolValues)),
    ...PageQuery(20, 50, MAX_RESULTS).properties,
  },
  { additionalProperties: false },
);
export type DiscoverQuery = Static<typeof DiscoverQuery>;

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });

const ranking = {
  score: Type.Number({ description: 'relevance weighted by trust and availability (docs/discovery.md)' }),
  relevance: Type.Number({ description: '0..1: how well the agent fits the query (1 when browsing)' }),
  trust: Type.Number({ description: '0..1 for the task classes matching the query; 0.5 without evidence' }),
  trustReceipts: Type.Integer({ description: 'verified outcome receipts behind trust (0: no evidence, trust is the neutral prior)' }),
};

export const DiscoveredAgent = Type.Composite([Agent, Type.Object(ranking)]);
export const DiscoveredAgentDetail = Type.Composite([Agent, Type.Object({ trust: ranking.trust, trustReceipts: ranking.trustReceipts })]);
