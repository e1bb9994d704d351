import { useEffect, useRef } from 'react';

export type AccountEvent =
  | { type: 'task.status'; taskId: string; status: string; at: string }
  /** The stream (re)connected, or said the events since the last one are gone: load the data again. */
  | { type: 'reload' };

/**
 * Listens to GET /v1/events (the session cookie goes along) while `enabled`. The browser reconnects
 * by itself and resumes with Last-Event-ID; each (re)connection reports `reload`, since a change made
 * while the page was loading or the connection was down may not be replayed.
 */
export function useAccountEvents(enabled: boolean, onEvent: (event: AccountEvent) => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    const source = new EventSource('/v1/events');
    source.addEventListener('open', () => handler.current({ type: 'reload' }));
    source.addEventListener('reset', () => handler.current({ type: 'reload' }));
    source.addEventListener('task.status', (event) => {
      const data = JSON.parse((event as MessageEvent<string>).data) as { taskId: string; status: string; at: string };
      handler.current({ type: 'task.status', taskId: data.taskId, status: data.status, at: data.at });
    });
    return () => source.close();
  }, [enabled]);
}
