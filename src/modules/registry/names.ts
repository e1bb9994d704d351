import { lookalikeKeys } from '../../lib/confusables.ts';
import { conflict, type AppError } from '../../lib/errors.ts';
import { assertVisibleText } from '../../lib/visible-text.ts';
import type { AgentRow, RegistryStore } from './store.ts';

/** The columns that hold a name's lookalike keys. */
export interface NameKeys {
  name_skeleton: string;
  name_skeleton_lower: string;
}

/**
 * Agent names people can trust: a name shows every character it holds, and no two agents have
 * names that look alike (docs/registry.md "Names"). Slugs already keep names apart that differ only
 * in case, spacing or punctuation; this catches the ones whose slugs differ but whose letters do
 * not look different, such as a Cyrillic "і" for a Latin "i".
 */
export function createAgentNames(store: RegistryStore, canSee: (row: AgentRow, personId: string | null) => Promise<boolean>) {
  /** The 409 for a name that looks like `holder`'s; an agent the caller may not see is not named. */
  async function lookalikeOf(holder: AgentRow, viewerId: string | null): Promise<AppError> {
    if (!(await canSee(holder, viewerId))) {
      return conflict('This name looks like the name of another agent; choose another name', [
        { path: '/body/name', message: "looks like another agent's name" },
      ]);
    }
    return conflict(`This name looks like the name of the agent "${holder.name}" (slug "${holder.slug}"); choose another name`, [
      { path: '/body/name', message: `looks like "${holder.name}" (${holder.slug})` },
    ]);
  }

  async function conflictFor(keys: { asWritten: string; lowercase: string }, selfId: string | null, viewerId: string | null): Promise<AppError | null> {
    const holder = await store.findLookalike(keys, selfId);
    return holder ? lookalikeOf(holder, viewerId) : null;
  }

  return {
    /** 400 naming /body/name when the name holds a character it would not show. */
    checkCharacters: (name: string) => assertVisibleText(name, '/body/name'),

    /**
     * The keys to store with `name`, once no agent but `selfId` has a name that looks like it
     * (409 naming that agent otherwise). An agent may take a name that looks like its own.
     */
    async keysFor(name: string, selfId: string | null, viewerId: string | null): Promise<NameKeys> {
      const keys = lookalikeKeys(name);
      const error = await conflictFor(keys, selfId, viewerId);
      if (error) throw error;
      return { name_skeleton: keys.asWritten, name_skeleton_lower: keys.lowercase };
    },

    /**
     * After a write of `name` hit a unique index: the 409 for the agent that took a lookalike name
     * first (a concurrent registration or rename), or a plain 409 if that agent is gone again.
     */
    async lostRace(name: string, selfId: string | null, viewerId: string | null): Promise<AppError> {
      return (
        (await conflictFor(lookalikeKeys(name), selfId, viewerId)) ??
        conflict('Another agent took a name that looks like this one at the same time; choose another name')
      );
    },
  };
}

export type AgentNames = ReturnType<typeof createAgentNames>;
