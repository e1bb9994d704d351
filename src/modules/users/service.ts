import type { Principal } from '../../lib/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import { isoIn, isoNow } from '../../lib/clock.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { assertVisibleText } from '../../lib/visible-text.ts';
import type { Signals } from '../../db/signals.ts';
import type { AgentAccountResolver } from '../auth/index.ts';
import { createProfileCache } from './profile-cache.ts';
import type { ProfileRow, UsersStore } from './store.ts';
import { checkUsername } from './usernames.ts';

export const profileView = (row: ProfileRow) => ({
  id: row.id,
  username: row.username,
  displayName: row.display_name,
  bio: row.bio,
  avatarUrl: row.avatar_url,
  type: row.type,
  agentId: row.agent_id,
  followersCount: row.followers_count,
  followingCount: row.following_count,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export type ProfileView = ReturnType<typeof profileView>;

/** How long a deleted account's username stays refused to anyone else. */
export const USERNAME_RESERVATION_DAYS = 90;

export interface UsersServiceDeps {
  store: UsersStore;
  clock: Clock;
  agentAccounts: AgentAccountResolver;
  signals: Signals;
  /** A cache invalidation that could not be sent to other nodes. */
  onSignalError?: (error: unknown) => void;
}

export interface CreateProfileInput {
  username: string;
  displayName: string;
  bio?: string;
  type?: 'human' | 'agent';
  agentId?: string;
  avatarUrl?: string;
}

export function createUsersService({ store, clock, agentAccounts, signals, onSignalError }: UsersServiceDeps) {
  const profiles = createProfileCache<ProfileView>({ clock, signals, ...(onSignalError ? { onError: onSignalError } : {}) });
  const profileChanged = (accountId: string) => profiles.forget(accountId);

  async function loadProfile(accountId: string): Promise<ProfileView> {
    const ticket = profiles.ticket();
    const row = await store.findByAccount(accountId);
    if (!row) throw notFound('No profile yet: create one with POST /v1/users');
    const view = profileView(row);
    profiles.remember(accountId, view, ticket);
    return view;
  }

  /** Why a username a deleted account had cannot be taken yet, or null. */
  async function reservation(username: string): Promise<string | null> {
    const until = await store.reservedUntil(username, isoNow(clock));
    return until ? `This username belonged to a deleted account and is reserved until ${until.slice(0, 10)}, so no one takes over a name others knew` : null;
  }

  return {
    /**
     * Account deletion's part: the person's profile and the profiles of their agents go (posts and
     * all); each username is reserved for USERNAME_RESERVATION_DAYS.
     */
    async deleteProfilesOf(accountId: string, agentIds: string[]) {
      await store.deleteProfiles(accountId, agentIds, isoIn(clock, USERNAME_RESERVATION_DAYS * 24 * 3600_000));
      await profileChanged(accountId);
    },

    /** Call after any committed write to an account's profile row (counters included), so no node serves the old one. */
    profileChanged,

    async checkAvailability(raw: string) {
      const verdict = checkUsername(raw);
      if (!verdict.ok) return { available: false as const, reason: verdict.reason };
      if (await store.findByUsername(verdict.username)) return { available: false as const, reason: 'This username is taken' };
      const reserved = await reservation(verdict.username);
      if (reserved) return { available: false as const, reason: reserved };
      return { available: true as const, username: verdict.username };
    },

    async create(principal: Principal, input: CreateProfileInput) {
      const verdict = checkUsername(input.username);
      if (!verdict.ok) throw badRequest(verdict.reason, [{ path: '/body/username', message: verdict.reason }]);
      assertVisibleText(input.displayName, '/body/displayName');
      const type = input.type ?? (principal.kind === 'agent' ? 'agent' : 'human');
      // An agent's credential speaks for that agent: its profile is an agent's and links to it.
      if (principal.kind === 'agent' && type !== 'agent') throw badRequest('A credential acting as an agent creates an agent profile (type "agent")');
      if (principal.kind === 'agent' && input.agentId && input.agentId !== principal.agentId) {
        throw badRequest('agentId must be the agent this credential acts as');
      }
      if (type === 'human' && input.agentId) throw badRequest('Only agent profiles link to an agent (type "agent")');
      let agentId = principal.kind === 'agent' ? principal.agentId : null;
      if (principal.kind === 'person' && input.agentId) {
        await agentAccounts.serviceAccountFor(input.agentId, principal.personId);
        agentId = input.agentId;
      }
      if (await store.findByAccount(principal.accountId)) throw conflict('This account already has a profile');
      if (await store.findByUsername(verdict.username)) throw conflict('This username is taken');
      const reserved = await reservation(verdict.username);
      if (reserved) throw conflict(reserved, [{ path: '/body/username', message: reserved }]);
      const now = isoNow(clock);
      const row: ProfileRow = {
        id: newId(),
        account_id: principal.accountId,
        username: verdict.username,
        display_name: input.displayName,
        bio: input.bio ?? '',
        avatar_url: input.avatarUrl ?? null,
        type,
        agent_id: agentId,
        followers_count: 0,
        following_count: 0,
        created_at: now,
        updated_at: now,
      };
      // A concurrent create that wins the race surfaces as a unique violation, which the error handler maps to 409.
      await store.insert(row);
      await profileChanged(principal.accountId);
      return profileView(row);
    },

    /** Answers from memory when it can, so the hot read costs no promise. */
    me(principal: Principal): ProfileView | Promise<ProfileView> {
      return profiles.get(principal.accountId) ?? loadProfile(principal.accountId);
    },

    async update(principal: Principal, changes: { displayName?: string; bio?: string; avatarUrl?: string | null }) {
      if (changes.displayName !== undefined) assertVisibleText(changes.displayName, '/body/displayName');
      const row = await store.update(principal.accountId, {
        ...(changes.displayName !== undefined ? { display_name: changes.displayName } : {}),
        ...(changes.bio !== undefined ? { bio: changes.bio } : {}),
        ...(changes.avatarUrl !== undefined ? { avatar_url: changes.avatarUrl } : {}),
        updated_at: isoNow(clock),
      });
      if (!row) throw notFound('No profile yet: create one with POST /v1/users');
      await profileChanged(principal.accountId);
      return profileView(row);
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
