/**
 * Deleting an account (docs/security.md, "Deleting an account"). The auth module owns the account,
 * but each module owns what it keeps of one, so each hooks a part in here (from the composition root):
 * a refusal (what must be settled first) and a removal of its own rows. Removals run in the order
 * they were hooked, after no part refused, and before the account itself is closed; each must be safe
 * to run again, because a failure leaves the person signed in to retry.
 */
export interface AccountDeletionPart {
  /** What the person must settle first (a whole sentence), or null when nothing holds the deletion up. */
  refusal?(accountId: string): Promise<string | null>;
  /** Deletes what this module holds of the account. */
  remove?(accountId: string): Promise<void>;
}

export function createAccountDeletion() {
  const parts: AccountDeletionPart[] = [];
  return {
    hook(part: AccountDeletionPart): void {
      parts.push(part);
    },
    async refusals(accountId: string): Promise<string[]> {
      const answers = await Promise.all(parts.map((part) => (part.refusal ? part.refusal(accountId) : Promise.resolve(null))));
      return answers.filter((answer): answer is string => answer !== null);
    },
    async removeAll(accountId: string): Promise<void> {
      for (const part of parts) await part.remove?.(accountId);
    },
  };
}

export type AccountDeletion = ReturnType<typeof createAccountDeletion>;
