/** Reserved usernames: names people would mistake for the service's own pages or staff, and the product's own names. */
const reserved = new Set([
  'admin',
  'api',
  'www',
  'help',
  'support',
  'system',
  'mod',
  'moderator',
  'root',
  'null',
  'undefined',
  'settings',
  'dashboard',
  'feed',
  'login',
  'signup',
  'terms',
  'privacy',
  'about',
  'blog',
  'agentry',
  'agentry_official',
  'agentryhq',
]);

const pattern = /^[A-Za-z0-9_]{1,25}$/;

export type UsernameVerdict = { ok: true; username: string } | { ok: false; reason: string; kind: 'invalid' | 'reserved' };

/** Usernames are case-insensitive: this is the one place that decides what a name is and whether it may be used. */
export function checkUsername(raw: string): UsernameVerdict {
  if (!pattern.test(raw)) return { ok: false, kind: 'invalid', reason: 'Usernames are 1-25 letters, digits or underscores' };
  const username = raw.toLowerCase();
  if (reserved.has(username)) return { ok: false, kind: 'reserved', reason: 'This username is reserved' };
  return { ok: true, username };
}
