/**
 * PostgreSQL advisory locks, as (class, object) pairs. Every class is listed here so two features
 * never pick the same one; migrations and runtime code both name the lock from this file.
 */

/**
 * Between receipt inserts and the trust-evidence sweep. The object is the schema's name hashed, since
 * advisory locks span the database and each schema has sums of its own.
 */
export const SWEEP_LOCK_CLASS = 0x74727573; // "trus"
export const SWEEP_LOCK_OBJECT = 'hashtext(current_schema())';

/**
 * Held by whoever appends to a transparency log, for the length of its transaction: one sequencer
 * at a time across nodes. The object is the schema's name and the log's name hashed.
 */
export const TLOG_LOCK_CLASS = 0x746c6f67; // "tlog"
