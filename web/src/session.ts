import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, csrfToken, unwrap } from './api/client';

/** The signed-in account, or null when signed out (the API says 401); also prefetched by main.tsx. */
export const accountQueryOptions = queryOptions({
  queryKey: ['account'],
  queryFn: async () => {
    // Without the readable half of the session cookies there is no session: no need to ask.
    if (csrfToken() === undefined) return null;
    try {
      return (await unwrap(api.GET('/v1/auth/account'))).data;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    }
  },
  staleTime: 60_000,
});

export function useAccount() {
  return useQuery(accountQueryOptions);
}

/** The signed-in person's social profile, or null before they made one. */
export function useProfile(enabled: boolean) {
  return useQuery({
    queryKey: ['profile'],
    enabled,
    queryFn: async () => {
      try {
        return (await unwrap(api.GET('/v1/users/me'))).data;
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return async () => {
    try {
      await unwrap(api.POST('/v1/auth/logout'));
    } finally {
      client.clear();
    }
  };
}
