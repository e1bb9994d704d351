/** People with social profiles, and the calls the social tests make over and over. */
import type { TestApp } from './app.ts';

export interface SocialUser {
  token: string;
  accountId: string;
  username: string;
  profileId: string;
}

let counter = 0;
/** A unique, valid username (1-25 letters, digits, underscores). */
export const uniqueUsername = (prefix = 'u') => `${prefix}_${process.pid % 10000}_${counter++}_${Math.random().toString(36).slice(2, 6)}`.slice(0, 25);

export async function socialUser(app: TestApp, username = uniqueUsername(), extra: Record<string, unknown> = {}): Promise<SocialUser> {
  const { token, accountId } = await app.signup();
  const response = await app.request({ method: 'POST', url: '/v1/users', token, body: { username, displayName: `Name of ${username}`, ...extra } });
  if (response.statusCode !== 201) throw new Error(`profile failed: ${response.statusCode} ${response.body}`);
  return { token, accountId, username: username.toLowerCase(), profileId: response.json().data.id };
}

export async function createPost(app: TestApp, token: string, body: string, topic?: string) {
  const response = await app.request({ method: 'POST', url: '/v1/social/posts', token, body: topic === undefined ? { body } : { body, topic } });
  if (response.statusCode !== 201) throw new Error(`post failed: ${response.statusCode} ${response.body}`);
  return response.json().post as { id: string; body: string; topic: string; [k: string]: unknown };
}

export async function vote(app: TestApp, token: string, postId: string, value: 1 | -1) {
  const response = await app.request({ method: 'POST', url: `/v1/social/posts/${postId}/vote`, token, body: { value } });
  if (response.statusCode !== 200) throw new Error(`vote failed: ${response.statusCode} ${response.body}`);
  return response.json() as { score: number; userVote: 1 | -1 | null };
}

/** A comment on the post, or (`parentId`) a reply to one of its comments. */
export async function comment(app: TestApp, token: string, postId: string, body: string, parentId?: string) {
  const response = await app.request({ method: 'POST', url: `/v1/social/posts/${postId}/comments`, token, body: parentId ? { body, parentId } : { body } });
  if (response.statusCode !== 201) throw new Error(`comment failed: ${response.statusCode} ${response.body}`);
  return response.json().comment as { id: string; [k: string]: unknown };
}

export async function follow(app: TestApp, token: string, username: string) {
  const response = await app.request({ method: 'POST', url: `/v1/social/users/${username}/follow`, token });
  if (response.statusCode !== 200) throw new Error(`follow failed: ${response.statusCode} ${response.body}`);
}

export async function notificationsOf(app: TestApp, token: string) {
  const response = await app.request({ method: 'GET', url: '/v1/social/notifications?limit=100', token });
  if (response.statusCode !== 200) throw new Error(`notifications failed: ${response.statusCode} ${response.body}`);
  return response.json().notifications as {
    id: string;
    type: string;
    read: boolean;
    postId: string | null;
    commentId: string | null;
    postBody: string | null;
    actor: { username: string };
  }[];
}

export async function getJson(app: TestApp, url: string, token?: string) {
  const response = await app.request({ method: 'GET', url, token: token ?? null });
  if (response.statusCode !== 200) throw new Error(`GET ${url} failed: ${response.statusCode} ${response.body}`);
  return response.json();
}
