export type DialectName = 'sqlite' | 'postgres';

export function dialectOf(databaseUrl: string): DialectName {
  return /^postgres(ql)?:\/\//.test(databaseUrl) ? 'postgres' : 'sqlite';
}

/** `sqlite:./data/x.db`, `./data/x.db` and `:memory:` all name a SQLite database file. */
export function sqlitePath(databaseUrl: string): string {
  return databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : databaseUrl;
}
