/**
 * Summarises a V8 heap snapshot (node --heapsnapshot-signal=..., or Chrome's devtools): the
 * snapshot's total, and self size and count by node type and constructor name, largest first.
 *
 *   npx tsx bench/heap-summary.ts <file.heapsnapshot> [--top 40]
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args.splice(topIndex, 2)[1]) : 40;
const file = args[0];
if (!file) throw new Error('usage: heap-summary.ts <file.heapsnapshot> [--top N]');

const snapshot = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const fields = snapshot.snapshot.meta.node_fields;
const types = snapshot.snapshot.meta.node_types[0];
const width = fields.length;
const typeAt = fields.indexOf('type');
const nameAt = fields.indexOf('name');
const sizeAt = fields.indexOf('self_size');

const groups = new Map<string, { size: number; count: number }>();
let total = 0;
for (let i = 0; i < snapshot.nodes.length; i += width) {
  const type = types[snapshot.nodes[i + typeAt]!]!;
  const size = snapshot.nodes[i + sizeAt]!;
  total += size;
  // Strings and code are grouped by type alone: their names are their contents.
  const name = type === 'object' || type === 'closure' || type === 'native' ? snapshot.strings[snapshot.nodes[i + nameAt]!]!.slice(0, 60) : '';
  const key = `${type}${name ? ` ${name}` : ''}`;
  const group = groups.get(key) ?? { size: 0, count: 0 };
  group.size += size;
  group.count++;
  groups.set(key, group);
}
console.log(`${file}: ${(total / 1024 / 1024).toFixed(1)} MB in ${snapshot.nodes.length / width} nodes\n`);
console.log('| MB | count | type and constructor |\n| ---: | ---: | --- |');
for (const [key, group] of [...groups].sort((a, b) => b[1].size - a[1].size).slice(0, top)) {
  console.log(`| ${(group.size / 1024 / 1024).toFixed(2)} | ${group.count} | ${key.replace(/\|/g, '\\|')} |`);
}
