import type { OutboundClient } from '../../lib/outbound-http.ts';
import type { FetchLike } from './model.ts';

/**
 * The model extractor's HTTP through the service's SSRF-checked client: a configured model URL is
 * as untrusted as an agent endpoint. A response of any status comes back as a response; only a
 * failure with no response (blocked, DNS, connect, timeout, aborted) rejects. The extractor's
 * signal is passed on, so its own deadline closes the connection instead of leaving it to the
 * client's longer one.
 */
export function outboundFetch(outbound: OutboundClient): FetchLike {
  return async (url, init) => {
    const result = await outbound.send({ url, method: 'POST', headers: init.headers, body: init.body, requireFullBody: true, signal: init.signal });
    if (result.ok) return { ok: true, status: result.response.status, text: async () => result.response.body };
    const { response, failure } = result;
    if (!response) throw new Error(`${failure.kind}: ${failure.message}`);
    return { ok: false, status: response.status, text: async () => response.body };
  };
}
