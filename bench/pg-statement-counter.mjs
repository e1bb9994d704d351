/**
 * Loaded into the service by a bench (`node --import ./bench/pg-statement-counter.mjs`): counts every
 * statement any PostgreSQL client of the process sends (the pool's queries, BEGIN and COMMIT, the
 * signal bus's NOTIFY and LISTEN, background work), by statement text. On SIGUSR2 it writes the
 * counts so far to the file named by PG_STATEMENT_COUNT_FILE, so the bench can count the statements
 * of its measured window without a restart or access to PostgreSQL's logs. Plain JavaScript: it is
 * loaded before the TypeScript loader.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';

const pg = createRequire(`${process.cwd()}/package.json`)('pg');
const byText = new Map();
let total = 0;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(config, ...rest) {
  const text = typeof config === 'string' ? config : config?.text;
  if (typeof text === 'string') {
    total++;
    byText.set(text, (byText.get(text) ?? 0) + 1);
  }
  return originalQuery.call(this, config, ...rest);
};

const file = process.env.PG_STATEMENT_COUNT_FILE;
if (file) {
  process.on('SIGUSR2', () => writeFileSync(file, JSON.stringify({ total, byText: Object.fromEntries(byText) })));
}
