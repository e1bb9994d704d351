import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './api/client';

/** The capability catalogue changes only with a release. */
export function useCatalogue() {
  return useQuery({ queryKey: ['capabilities'], queryFn: () => unwrap(api.GET('/v1/capabilities')), staleTime: Infinity });
}
