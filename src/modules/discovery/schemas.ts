import { Type, type Static } from '@sinclair/typebox';
import { literals, PageQuery } from '../../http/schemas.ts';
import { Agent, identityLevels, protocolValues } from '../registry/index.ts';
import { MAX_RESULTS } from './ranking.ts';
import { matchedByValues } from './matched-by.ts';

export const DiscoverQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 500, description: 'What you need, in your own words; omit to browse by trust and availability' })),
    category: Type.Optional(Type.String({ pattern: '^[a-z0-9-]{1,40}$' })),
    capability: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'A capability term; catalogue aliases match their capability' })),
    protocol: Type.Optional(literals(protocolValues)),
    identityLevel: Type.Optional(
      literals(identityLevels, { description: 'only agents at this identity level (domain: a verified endpoint domain; key: a proven key, no domain)' }),
    ),
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
  weakMatch: Type.Boolean({
    description:
      'loosely related at best: relevance below the weak-match floor, or too little support from meaning and the query\'s words together (docs/discovery.md, "Weak matches")',
  }),
  matchedBy: Type.Array(literals(matchedByValues), {
    description:
      'what the result matched on: its own description, its capabilities, its published examples, or the words of completed, well-rated tasks people gave it (never shown); empty when browsing',
  }),
};

export const DiscoveredAgent = Type.Composite([Agent, Type.Object(ranking)]);
export const DiscoveredAgentDetail = Type.Composite([Agent, Type.Object({ trust: ranking.trust, trustReceipts: ranking.trustReceipts })]);

export const SearchSettings = Type.Object({
  completedTasksImproveSearch: Type.Boolean({
    description:
      'let my completed tasks improve search: the words of tasks you rate 4 or 5 help discovery find the agent that did them (never shown to anyone); on by default, off removes what your tasks gave',
  }),
});
export const UpdateSearchSettings = Type.Object(
  { completedTasksImproveSearch: SearchSettings.properties.completedTasksImproveSearch },
  { additionalProperties: false },
);
