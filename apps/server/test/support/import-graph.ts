import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A source file by its path under src/ (posix), its text and the src/ files it imports. */
export type SourceFile = { path: string; text: string; imports: string[] };
export type SourceTree = Map<string, SourceFile>;

// `import … from '…'` and `export … from '…'` (no `;` inside: a clause never holds one, so the match
// cannot run on into the next statement), side-effect imports, and import('…').
const FROM = /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm;
const BARE = /^\s*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module specifier a file names, relative or not, in order. */
export function specifiersOf(text: string): string[] {
  return [FROM, BARE, DYNAMIC].flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]));
}

/** The tree from file texts keyed by their path under src/: what tests plant, and what readSourceTree reads. */
export function sourceTreeOf(texts: Record<string, string>): SourceTree {
  const tree: SourceTree = new Map();
  for (const [file, text] of Object.entries(texts)) {
    const imports = specifiersOf(text)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveIn(texts, file, specifier))
      .filter((target): target is string => target !== null);
    tree.set(file, { path: file, text, imports });
  }
  return tree;
}

function resolveIn(texts: Record<string, string>, from: string, specifier: string) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`]) if (candidate in texts) return candidate;
  return null;
}

/** Every .ts file under a folder (src/ of the server), keyed by its posix path below it. */
export function readSourceTree(root: string): SourceTree {
  const texts: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts'))
        texts[path.relative(root, full).split(path.sep).join('/')] = readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return sourceTreeOf(texts);
}

/** The import circles: each a group of files that reach one another (type-only imports count). */
export function importCircles(tree: SourceTree): string[][] {
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const target of tree.get(file)?.imports ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target))
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || tree.get(file)?.imports.includes(file)) circles.push(group.sort());
  };
  for (const file of tree.keys()) if (!index.has(file)) visit(file);
  return circles;
}

export const isRepository = (file: string) => /[.-]repository\.ts$/.test(file);
export const isRoutes = (file: string) => /routes[^/]*\.ts$/.test(path.posix.basename(file));

/** A route file that imports a repository or db/ (db/schema.ts, which holds only the tables' types, excepted). */
export function routesReachingData(tree: SourceTree): string[] {
  const breaches: string[] = [];
  for (const file of tree.values()) {
    if (!isRoutes(file.path)) continue;
    for (const target of file.imports)
      if (isRepository(target) || (target.startsWith('db/') && target !== 'db/schema.ts'))
        breaches.push(`${file.path} imports ${target}`);
  }
  return breaches;
}

const HTTP_PACKAGE = /^(fastify|@fastify\/|fastify-)/;

/** HTTP code: routes, the plugins, and whatever works with Fastify's requests and replies. */
export function isHttpCode(file: SourceFile) {
  return (
    isRoutes(file.path) ||
    file.path.startsWith('plugins/') ||
    file.path === 'api-instance.ts' ||
    specifiersOf(file.text).some((specifier) => HTTP_PACKAGE.test(specifier))
  );
}

/**
 * A messaging/ file that reaches HTTP code (directly or through what it imports, a module's file
 * above all), with the chain of imports. The engine runs without the API: it may use a module's
 * repository or a helper, never its routes.
 */
export function messagingReachingHttp(tree: SourceTree): string[] {
  const breaches: string[] = [];
  for (const file of tree.values()) {
    if (!file.path.startsWith('messaging/')) continue;
    const seen = new Set<string>([file.path]);
    const queue: string[][] = [[file.path]];
    while (queue.length > 0) {
      const chain = queue.shift() as string[];
      for (const target of tree.get(chain.at(-1) as string)?.imports ?? []) {
        if (seen.has(target)) continue;
        seen.add(target);
        if (isHttpCode(tree.get(target) as SourceFile)) breaches.push([...chain, target].join(' -> '));
        else queue.push([...chain, target]);
      }
    }
  }
  return breaches;
}

// SQL as Kysely writes it: the sql template tag and its helpers, and the query builders.
const SQL_PATTERNS = [
  /\bsql\s*(?:<[^`]*?>)?\s*`/,
  /\bsql\.(?:raw|join|ref|id|lit|val|table)\s*\(/,
  /\.(?:selectFrom|selectNoFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\s*\(/,
  /\.query\s*\(\s*['"`]/,
];

const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"\\])\/\/.*$/gm, '$1');

/**
 * Files outside the data layer that hold SQL: a query lives in its module's repository. db/ is the
 * data layer itself; messaging/ (the engine, with its own repository) is checked by its import rule only.
 */
export function sqlOutsideRepositories(tree: SourceTree): string[] {
  const breaches: string[] = [];
  for (const file of tree.values()) {
    if (isRepository(file.path) || file.path.startsWith('db/') || file.path.startsWith('messaging/'))
      continue;
    const code = withoutComments(file.text);
    for (const pattern of SQL_PATTERNS) {
      const found = code.match(pattern);
      if (found) breaches.push(`${file.path}: ${found[0]}`);
    }
  }
  return breaches;
}
