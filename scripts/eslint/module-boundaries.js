/**
 * ESLint rule: code outside a module enters it only through its index.ts. A file under
 * src/modules/<name>/ may import anything of its own module; any other file of src/ that imports
 * from src/modules/<name>/ must name src/modules/<name>/index.ts. Migrations import no migration.
 * No module imports src/db/schema.ts, the union of every module's tables: a store is typed with its
 * own module's tables (ownTables), so naming another module's table does not compile.
 */
import path from 'node:path';

const modulesRoot = path.resolve(import.meta.dirname, '../../src/modules');
const migrationsRoot = path.resolve(import.meta.dirname, '../../src/db/migrations');
const wholeSchema = path.resolve(import.meta.dirname, '../../src/db/schema.ts');

/** The module a file belongs to (its folder right under src/modules), or null. */
function moduleOf(file) {
  const relative = path.relative(modulesRoot, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
  const [name] = relative.split(path.sep);
  return name && relative.includes(path.sep) ? name : null;
}

export const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "imports between modules go through the other module's index.ts" },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const ownModule = moduleOf(file);
    const inMigrations = path.dirname(file) === migrationsRoot;
    function check(node) {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source);
      const targetModule = moduleOf(target);
      if (targetModule && targetModule !== ownModule && path.relative(path.join(modulesRoot, targetModule), target) !== 'index.ts') {
        context.report({ node: node.source, message: `Import module "${targetModule}" through its index.ts, not ${source}.` });
      }
      if (ownModule && target === wholeSchema) {
        context.report({ node: node.source, message: 'A module sees only its own tables (its tables.ts, through ownTables), not the whole Database type.' });
      }
      if (inMigrations && path.dirname(target) === migrationsRoot && path.basename(file) !== 'index.ts') {
        context.report({ node: node.source, message: 'A migration must not import another migration: it must never change once released.' });
      }
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
