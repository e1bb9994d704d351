import { infiniteQueryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, unwrap } from '../api/client';
import type { Post } from '../api/types';
import { useAccount, useProfile } from '../session';

const FEED_PAGE = 20;
const LIST_PAGE = 20;

export interface FeedPage {
  posts: Post[];
  hasMore: boolean;
  offset: number;
  /** The moment the first page was taken at: later pages ask for the feed as of then, so nothing shifts. */
  before: string | undefined;
  /** How many of this page's first posts are the trending slice. */
  trending: number;
}

/**
 * A feed read page by page for endless scrolling. Every page after the first passes the first
 * page's `X-Feed-Before`, so posts arriving meanwhile neither repeat a post nor skip one.
 */
export function useFeed(feed: 'foryou' | 'following', topic: string | undefined, enabled = true) {
  return useInfiniteQuery({ ...feedQueryOptions(feed, topic), enabled });
}

/** The feed's query, shared by useFeed and main.tsx's prefetch (which must ask under the same key). */
export function feedQueryOptions(feed: 'foryou' | 'following', topic: string | undefined) {
  return infiniteQueryOptions({
    queryKey: ['feed', feed, topic ?? ''],
    // Long enough for the page to take main.tsx's prefetched answer as it is instead of asking again.
    staleTime: 10_000,
    initialPageParam: { offset: 0, before: undefined as string | undefined },
    queryFn: async ({ pageParam }): Promise<FeedPage> => {
      let headers: Headers | undefined;
      const data = await unwrap(
        api
          .GET('/v1/social/posts', {
            params: {
              query: {
                feed,
                limit: FEED_PAGE,
                offset: pageParam.offset,
                ...(topic ? { topic } : {}),
                ...(pageParam.before ? { before: pageParam.before } : {}),
              },
            },
          })
          .then((result) => {
            headers = result.response.headers;
            return result;
          }),
      );
      return {
        posts: data.posts,
        hasMore: data.pagination.hasMore,
        offset: pageParam.offset,
        before: pageParam.before ?? headers?.get('x-feed-before') ?? undefined,
        trending: Number(headers?.get('x-feed-trending') ?? 0),
      };
    },
    getNextPageParam: (last) => (last.hasMore ? { offset: last.offset + last.posts.length, before: last.before } : undefined),
  });
}

/** Whether the visitor can act socially: signed in and with a profile. */
export function useSocialSelf() {
  const account = useAccount();
  const profile = useProfile(Boolean(account.data));
  return { account, profile, me: profile.data ?? null };
}

/** The unread count for the bell; read again whenever the page changes (events make it live later). */
export function useUnreadCount(enabled: boolean, pathname: string) {
  return useQuery({
    queryKey: ['notifications', 'unread', pathname],
    enabled,
    queryFn: async () => (await unwrap(api.GET('/v1/social/notifications/unread'))).unread,
    placeholderData: (previous) => previous,
    staleTime: 0,
  });
}

/** An infinite query's pages flattened to what a list needs. */
export function pagedOf<P, T>(
  query: {
    isPending: boolean;
    isError: boolean;
    error: unknown;
    data?: { pages: P[] };
    hasNextPage: boolean;
    isFetchingNextPage: boolean;
    fetchNextPage: () => unknown;
    refetch: () => unknown;
  },
  itemsOf: (page: P) => T[],
): Paged<T> {
  return {
    isPending: query.isPending,
    isError: query.isError,
    error: query.error,
    items: query.data?.pages.flatMap(itemsOf) ?? [],
    hasNextPage: query.hasNextPage,
    isFetchingNextPage: query.isFetchingNextPage,
    fetchNextPage: query.fetchNextPage,
    refetch: query.refetch,
  };
}

/** The part of an infinite query a list needs. */
export interface Paged<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  items: T[];
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => unknown;
  refetch: () => unknown;
}

/** A list the API pages by offset, read page by page as the reader scrolls. */
export function useOffsetList<T>(key: readonly unknown[], load: (offset: number, limit: number) => Promise<{ items: T[]; hasMore: boolean }>, enabled = true) {
  const query = useInfiniteQuery({
    queryKey: key,
    enabled,
    initialPageParam: 0,
    queryFn: async ({ pageParam }) => ({ ...(await load(pageParam, LIST_PAGE)), offset: pageParam }),
    getNextPageParam: (last) => (last.hasMore ? last.offset + last.items.length : undefined),
  });
  return pagedOf(query, (page) => page.items);
}

/**
 * The topic each hashtag names, lowercase: a topic's slug and its aliases (#security: cybersecurity).
 * Read from the topic list the composer keeps too, once per visit; empty until it arrives.
 */
export function useTopicOfHashtag(): ReadonlyMap<string, string> {
  const topics = useQuery({ queryKey: ['topics'], queryFn: () => unwrap(api.GET('/v1/social/topics')), staleTime: Infinity });
  const data = topics.data?.data;
  return useMemo(() => new Map((data ?? []).flatMap((topic) => [topic.slug, ...topic.aliases].map((name) => [name, topic.slug] as const))), [data]);
}
