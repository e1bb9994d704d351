/** A client of GET /v1/events over real HTTP, reading the server-sent events as they come. */
import { waitFor } from './wait.ts';

export interface ServerSentEvent {
  id: string | null;
  event: string | null;
  data: string | null;
}

export interface EventsClient {
  status: number;
  headers: Headers;
  /** Every event so far, in the order they came (id-only frames included, with event null). */
  events: ServerSentEvent[];
  comments: string[];
  /** Whether the server ended the response. */
  ended(): boolean;
  /** Waits until `done` holds for the events so far and returns them. */
  until(what: string, done: (events: ServerSentEvent[]) => boolean): Promise<ServerSentEvent[]>;
  close(): void;
}

/** Parses complete frames (separated by a blank line) out of `buffer`; returns what is left. */
export function parseFrames(buffer: string, events: ServerSentEvent[], comments: string[]): string {
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end !== -1; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const frame: ServerSentEvent = { id: null, event: null, data: null };
    let fields = 0;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      const match = /^(id|event|data): (.*)$/.exec(line);
      if (!match) continue;
      frame[match[1] as keyof ServerSentEvent] = match[2]!;
      fields++;
    }
    if (fields > 0) events.push(frame);
  }
  return rest;
}

export async function openEvents(baseUrl: string, token: string | null, headers: Record<string, string> = {}, query = ''): Promise<EventsClient> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/v1/events${query}`, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    signal: controller.signal,
  });
  const events: ServerSentEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  if (response.body) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer = parseFrames(buffer + value, events, comments);
        }
      } catch {
        // Aborted by close().
      }
      ended = true;
    })();
  }
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    ended: () => ended,
    until: (what, done) => waitFor(what, () => events, done),
    close: () => controller.abort(),
  };
}

/** The task status events of a stream, as `{ taskId, status, role }`. */
export const taskStatuses = (events: ServerSentEvent[]) =>
  events
    .filter((event) => event.event === 'task.status')
    .map((event) => ({ id: Number(event.id), ...(JSON.parse(event.data as string) as { taskId: string; status: string; role: string; at: string }) }));
