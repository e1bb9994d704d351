import { api, unwrap } from './api/client';
import type { Protocol } from './api/types';

export const DISCOVER_PAGE_SIZE = 20;
export const protocols: NonNullable<Protocol>[] = ['mcp', 'a2a', 'rest', 'graphql', 'grpc', 'webhook', 'other'];

/** The search a `/agents` address holds (q, category, capability, protocol, page), and the API query for it. */
export function searchOf(params: URLSearchParams) {
  const q = params.get('q') ?? '';
  const category = params.get('category') ?? '';
  const capability = params.get('capability') ?? '';
  const protocolParam = params.get('protocol') ?? '';
  const protocol = protocols.includes(protocolParam as NonNullable<Protocol>) ? (protocolParam as NonNullable<Protocol>) : undefined;
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const query = {
    ...(q ? { q } : {}),
    ...(category ? { category } : {}),
    ...(capability ? { capability } : {}),
    ...(protocol ? { protocol } : {}),
    limit: DISCOVER_PAGE_SIZE,
    offset: (page - 1) * DISCOVER_PAGE_SIZE,
  };
  return { q, category, capability, protocol, page, query };
}

/**
 * The discover request for a search, shared by the search page and the early start in main.tsx. Results a
 * few seconds old are shown as they are, so the page does not ask again for what was just fetched.
 */
export function discoverQueryOptions(query: ReturnType<typeof searchOf>['query']) {
  return {
    queryKey: ['discover', query] as const,
    queryFn: () => unwrap(api.GET('/v1/discover', { params: { query } })),
    staleTime: 30_000,
  };
}
