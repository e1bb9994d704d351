#!/usr/bin/env node
// The compiled CLI (`npm run build` in a checkout; a published package ships dist/ built).
import process from 'node:process';

let main;
try {
  ({ main } = await import('../dist/main.js'));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/main.js')) throw error;
  process.stderr.write('agentry: the CLI is not built (dist/ is missing): run `npm run build` in the repository\n');
  process.exit(1);
}
await main();
