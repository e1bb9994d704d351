/** Reads the service's server-sent events (GET /v1/events) into typed events. Browser-safe. */

/** A task of yours (or one assigned to your agents) changed status. */
export interface TaskStatusEvent {
  id: string;
  event: 'task.status';
  data: { taskId: string; status: string; at: string; role: 'requester' | 'agent' };
}
/** The events since the id you resumed from are no longer kept: load the data again. */
export interface ResetEvent {
  id: string;
  event: 'reset';
  data: { reason: string };
}
export type AgentryEvent = TaskStatusEvent | ResetEvent;

const KNOWN = new Set(['task.status', 'reset']);

/**
 * Splits an event stream into events; `abortRequest` ends the request when the reader stops early. Frames without an event name (the stream's opening id) and
 * event names this version does not know are skipped: the service adds new kinds over time.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>, abortRequest: () => void): AsyncGenerator<AgentryEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of frame.split('\n')) {
          if (line === '' || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const name = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          fields[name] = name === 'data' && fields.data !== undefined ? `${fields.data}\n${value}` : value;
        }
        if (!fields.event || !KNOWN.has(fields.event)) continue;
        let data: unknown;
        try {
          data = JSON.parse(fields.data ?? 'null');
        } catch {
          continue;
        }
        yield { id: fields.id ?? '', event: fields.event, data } as AgentryEvent;
      }
    }
  } finally {
    // Abort the request before letting go of the body: a body only cancelled can leave the connection open.
    abortRequest();
    await reader.cancel().catch(() => {});
  }
}
