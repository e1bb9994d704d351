import { useEffect, useRef } from 'react';
import type { Post, SocialNotification } from '../api/types';

/**
 * What GET /v1/events sends, by event name: `task.status` (a task of yours or of your agents changed
 * status), `notification` (with the new unread count) and `post` (a new post by someone you follow).
 * Names this app does not know are ignored: the service may add more.
 */
export type AccountEvent =
  | { type: 'task.status'; taskId: string; status: string; at: string }
  | { type: 'notification'; notification: SocialNotification; unread: number }
  | { type: 'post'; post: Post }
  /** The stream (re)connected, or said the events since the last one are gone: load the data again. */
  | { type: 'reload' };

type Listener = (event: AccountEvent) => void;

/**
 * One stream for the whole page, however many views listen: the service caps the streams an
 * account may hold open, and one connection is cheaper anyway. It closes when the last view goes.
 */
const listeners = new Set<Listener>();
let source: EventSource | null = null;

function dispatch(event: AccountEvent): void {
  for (const listener of [...listeners]) listener(event);
}

function connect(): EventSource {
  const stream = new EventSource('/v1/events');
  const on = (name: string, toEvent: (data: never) => AccountEvent) =>
    stream.addEventListener(name, (message) => {
      try {
        dispatch(toEvent(JSON.parse((message as MessageEvent<string>).data) as never));
      } catch {
        // A frame this version cannot read is skipped, as an unknown name is.
      }
    });
  stream.addEventListener('open', () => dispatch({ type: 'reload' }));
  stream.addEventListener('reset', () => dispatch({ type: 'reload' }));
  on('task.status', (data: { taskId: string; status: string; at: string }) => ({ type: 'task.status', taskId: data.taskId, status: data.status, at: data.at }));
  on('notification', (data: { notification: SocialNotification; unread: number }) => ({
    type: 'notification',
    notification: data.notification,
    unread: data.unread,
  }));
  on('post', (data: { post: Post }) => ({ type: 'post', post: data.post }));
  return stream;
}

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
    const listener: Listener = (event) => handler.current(event);
    listeners.add(listener);
    source ??= connect();
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && source) {
        source.close();
        source = null;
      }
    };
  }, [enabled]);
}
