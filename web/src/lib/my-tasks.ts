import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useAccountEvents } from './events';

/** The signed-in person's tasks, newest first; kept current by the event stream. */
export function useMyTasks(limit: number, offset: number) {
  const client = useQueryClient();
  const tasks = useQuery({
    queryKey: ['tasks', 'mine', limit, offset],
    queryFn: () => unwrap(api.GET('/v1/tasks', { params: { query: { limit, offset } } })),
    placeholderData: keepPreviousData,
  });
  useAccountEvents(true, (event) => {
    if (event.type === 'reload' || event.type === 'task.status') void client.invalidateQueries({ queryKey: ['tasks', 'mine'] });
  });
  return tasks;
}
