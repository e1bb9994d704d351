/**
 * Builds the named parts (`web`, `packages`, `server`; all three when none is named) when they are
 * missing or older than their sources. `npm start` builds all three; the tests, the screenshots and
 * the budget check only what they use.
 */
import { buildPackagesIfStale, buildServerIfStale, buildWebIfStale } from './stale-builds.ts';

const builders = { web: buildWebIfStale, packages: buildPackagesIfStale, server: buildServerIfStale };
const named = process.argv.slice(2);
const unknown = named.filter((name) => !(name in builders));
if (unknown.length > 0) {
  console.error(`unknown part ${unknown.join(', ')}: name web, packages or server`);
  process.exit(2);
}
try {
  for (const part of named.length > 0 ? (named as (keyof typeof builders)[]) : (['web', 'packages', 'server'] as const)) builders[part]();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
