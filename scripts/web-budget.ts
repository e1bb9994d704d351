/**
 * First-load JavaScript of the built web app, gzipped: the entry script and the modules index.html
 * preloads (each page's own chunk comes later, when the route is visited). Fails above the budget.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 150 * 1024;
const root = fileURLToPath(new URL('../dist/web', import.meta.url));
const html = readFileSync(join(root, 'index.html'), 'utf8');
const scripts = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
const styles = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*\shref="(\/assets\/[^"]+\.css)"/g)].map((m) => m[1]!);
const gz = (path: string) => gzipSync(readFileSync(join(root, path))).length;
let total = 0;
for (const script of scripts) {
  const size = gz(script);
  total += size;
  console.log(`${(size / 1024).toFixed(1).padStart(7)} kB  ${script}`);
}
console.log(`${(total / 1024).toFixed(1).padStart(7)} kB  first-load JavaScript, gzipped (budget ${BUDGET_BYTES / 1024} kB)`);
for (const style of styles) console.log(`${(gz(style) / 1024).toFixed(1).padStart(7)} kB  ${style} (CSS, not counted)`);
if (total > BUDGET_BYTES) {
  console.error('over budget');
  process.exit(1);
}
