/**
 * Searches offered open loop, as many people searching at once do: each request is sent at its
 * scheduled time whatever the answers, latency counted from that time, with /health beside them.
 */
import { Agent, request } from 'undici';
import { percentile, threadCpuSeconds } from './lib.ts';

export interface Load {
  searchP50: number;
  searchP99: number;
  healthP50: number;
  healthP99: number;
  searches: number;
  failures: number;
  /** CPU ms per search: request thread, whole process. */
  requestThreadCpuMs: number;
  processCpuMs: number;
}

export interface LoadOptions {
  seconds: number;
  searchesPerSecond: number;
  healthPerSecond: number;
  /** Search words, used in turn. */
  queries: string[];
}

export async function openLoad(url: string, pid: number, { seconds, searchesPerSecond, healthPerSecond, queries }: LoadOptions): Promise<Load> {
  const dispatcher = new Agent({ connections: 256 });
  const searchMs: number[] = [];
  const healthMs: number[] = [];
  let failures = 0;
  const events: { at: number; path: string; into: number[] }[] = [];
  const searches = Math.round(seconds * searchesPerSecond);
  for (let i = 0; i < searches; i++) {
    events.push({ at: (i * 1000) / searchesPerSecond, path: `/v1/discover?q=${encodeURIComponent(queries[i % queries.length]!)}`, into: searchMs });
  }
  for (let i = 0; i < seconds * healthPerSecond; i++) events.push({ at: (i * 1000) / healthPerSecond + 7, path: '/health', into: healthMs });
  events.sort((a, b) => a.at - b.at);
  const cpuBefore = threadCpuSeconds(pid);
  const start = performance.now() + 50;
  const sent: Promise<void>[] = [];
  for (const event of events) {
    const at = start + event.at;
    const wait = at - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    sent.push(
      request(`${url}${event.path}`, { dispatcher }).then(
        async (response) => {
          await response.body.arrayBuffer();
          if (response.statusCode !== 200) failures++;
          event.into.push(performance.now() - at);
        },
        () => void failures++,
      ),
    );
  }
  await Promise.all(sent);
  const cpuAfter = threadCpuSeconds(pid);
  await dispatcher.close();
  const sum = (cpu: Map<string, number>) => [...cpu.values()].reduce((a, b) => a + b, 0);
  searchMs.sort((a, b) => a - b);
  healthMs.sort((a, b) => a - b);
  return {
    searchP50: percentile(searchMs, 50),
    searchP99: percentile(searchMs, 99),
    healthP50: percentile(healthMs, 50),
    healthP99: percentile(healthMs, 99),
    searches,
    failures,
    requestThreadCpuMs: ((cpuAfter.get('request thread')! - cpuBefore.get('request thread')!) * 1000) / searches,
    processCpuMs: ((sum(cpuAfter) - sum(cpuBefore)) * 1000) / searches,
  };
}
