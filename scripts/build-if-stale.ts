/** Before `npm start`: builds the web app and the server when either is missing or older than its sources. */
import { buildServerIfStale, buildWebIfStale } from './stale-builds.ts';

buildWebIfStale();
try {
  buildServerIfStale();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
