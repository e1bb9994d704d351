import { ApiError, csrfToken, type ErrorBody } from './client';

/** The server's cap on one image, checked here too so a large file is not sent only to be refused. */
export const MEDIA_MAX_BYTES = 5 * 1024 * 1024;

/** Where this page loads an upload from: the same origin, whatever address the service gives out. */
export const mediaPath = (id: string) => `/media/${encodeURIComponent(id)}`;

/**
 * Uploads an image as the raw request body (POST /v1/media takes bytes, not JSON, so it is sent
 * with fetch rather than the JSON client) and answers its id, its absolute address and the path
 * this page can show it from.
 */
export async function uploadImage(file: File): Promise<{ id: string; url: string; preview: string }> {
  if (file.size > MEDIA_MAX_BYTES) throw new ApiError(413, 'PAYLOAD_TOO_LARGE', 'An image may be at most 5 MB');
  const headers: Record<string, string> = { 'content-type': file.type || 'application/octet-stream' };
  const token = csrfToken();
  if (token) headers['x-csrf-token'] = token;
  let response: Response;
  try {
    response = await fetch('/v1/media', { method: 'POST', body: file, headers, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The service could not be reached. Check your connection and try again.');
  }
  const body = (await response.json().catch(() => ({}))) as Partial<ErrorBody> & { data?: { id: string; url: string } };
  if (!response.ok || !body.data)
    throw new ApiError(response.status, body.code ?? 'UNKNOWN', body.message ?? `The service answered ${response.status}`, body.details ?? []);
  return { id: body.data.id, url: body.data.url, preview: mediaPath(body.data.id) };
}
