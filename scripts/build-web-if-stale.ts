/** Builds the web app into dist/web when it is missing or older than its sources (tests, screenshots). */
import { buildWebIfStale } from './stale-builds.ts';

buildWebIfStale();
