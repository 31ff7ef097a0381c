/**
 * What a browser downloads before the console's first screen: the production build's entry
 * script(s), every chunk index.html preloads and anything they import statically (the initial
 * JavaScript), gzip-compressed as a server would send them; and the largest chunk that loads
 * only with its route. Built afresh (vite, a few seconds) into a temporary folder each run.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import type { BenchScenario } from '../support/scenario.ts';

const WEB_DIR = path.resolve(import.meta.dirname, '../../../apps/web');
const VITE = path.resolve(import.meta.dirname, '../../../node_modules/vite/bin/vite.js');
const INITIAL_JS_TARGET_KB = 150;

/** KB as vite's own build output counts them (1,000 bytes). */
const kilobytes = (bytes: number) => bytes / 1000;

function buildConsole(outDir: string) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [VITE, 'build', '--outDir', outDir, '--emptyOutDir', '--manifest', '--logLevel', 'warn'],
      { cwd: WEB_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`vite build exited with ${code}:\n${output}`)),
    );
  });
}

const attributeValues = (html: string, tag: RegExp, attribute: string) =>
  [...html.matchAll(tag)].map((match) => new RegExp(`${attribute}="([^"]+)"`).exec(match[0])?.[1] ?? '');

/** `import ... from"./x.js"`, `import"./x.js"`, `export ... from"./x.js"`; never `import("./x.js")`. */
const STATIC_IMPORT = /\b(?:import|export)\s*(?:[^"'();]*?\bfrom\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g;

/** The entry scripts and preloaded chunks of index.html, and every chunk they import statically. */
async function initialScripts(outDir: string, html: string) {
  const fromRoot = (href: string) => path.join(outDir, href.replace(/^\//, ''));
  const pending = [
    ...attributeValues(html, /<script\b[^>]*type="module"[^>]*>/g, 'src'),
    ...attributeValues(html, /<link\b[^>]*rel="modulepreload"[^>]*>/g, 'href'),
  ].map(fromRoot);
  const found = new Set<string>();
  for (let file = pending.pop(); file; file = pending.pop()) {
    if (found.has(file)) continue;
    found.add(file);
    const code = await readFile(file, 'utf8');
    for (const match of code.matchAll(STATIC_IMPORT))
      pending.push(path.resolve(path.dirname(file), match[1]));
  }
  return {
    scripts: [...found],
    stylesheets: attributeValues(html, /<link\b[^>]*rel="stylesheet"[^>]*>/g, 'href').map(fromRoot),
  };
}

/** What a signed-in user's first visit to /dashboard downloads besides the initial JavaScript. */
const FIRST_SCREEN_MODULES = [
  'src/app/layout/app-layout.tsx',
  'src/features/dashboard/pages/dashboard-page.tsx',
];

type Manifest = Record<string, { file: string; imports?: string[] }>;

/** The chunks of the given source modules and every chunk those import statically (vite's manifest). */
function manifestChunks(outDir: string, manifest: Manifest, modules: readonly string[]) {
  const found = new Set<string>();
  const pending = [...modules];
  for (let key = pending.pop(); key; key = pending.pop()) {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not a chunk of the build: update FIRST_SCREEN_MODULES`);
    const file = path.join(outDir, chunk.file);
    if (found.has(file)) continue;
    found.add(file);
    pending.push(...(chunk.imports ?? []));
  }
  return found;
}

const gzipBytes = async (file: string) => gzipSync(await readFile(file)).length;
const files = (count: number) => `${count} file${count === 1 ? '' : 's'}`;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
/** assets/messages-page-DYa-EkLd.js -> messages-page */
const chunkName = (file: string) => path.basename(file).replace(/-[\w-]{8}\.js$/, '');

export const scenario: BenchScenario = {
  name: 'console-weight',
  description: "the built console's initial JavaScript and largest route chunk, gzip",
  async run(ctx) {
    const outDir = await mkdtemp(path.join(os.tmpdir(), 'sms-bench-console-'));
    try {
      const started = performance.now();
      await buildConsole(outDir);
      ctx.log(`vite build in ${((performance.now() - started) / 1000).toFixed(1)} s`);

      const html = await readFile(path.join(outDir, 'index.html'), 'utf8');
      const { scripts, stylesheets } = await initialScripts(outDir, html);
      const initialSizes = await Promise.all(scripts.map(gzipBytes));
      const initialBytes = sum(initialSizes);
      ctx.log(
        `initial: ${scripts.map((file, i) => `${chunkName(file)} ${kilobytes(initialSizes[i]).toFixed(1)} KB`).join(', ')}`,
      );
      const initialKb = kilobytes(initialBytes);
      ctx.report({
        scenario: 'console-weight',
        measure: 'initial JavaScript (entry + preloads)',
        work: files(scripts.length),
        figure: initialKb,
        unit: 'KB gzip',
        baseline: { name: `${INITIAL_JS_TARGET_KB} KB`, figure: INITIAL_JS_TARGET_KB },
        target: `<= ${INITIAL_JS_TARGET_KB} KB`,
        met: initialKb <= INITIAL_JS_TARGET_KB,
      });

      const manifest = JSON.parse(
        await readFile(path.join(outDir, '.vite/manifest.json'), 'utf8'),
      ) as Manifest;
      const firstScreen = new Set([...scripts, ...manifestChunks(outDir, manifest, FIRST_SCREEN_MODULES)]);
      ctx.report({
        scenario: 'console-weight',
        measure: 'first screen signed in (/dashboard): initial + shell + page',
        work: files(firstScreen.size),
        figure: kilobytes(sum(await Promise.all([...firstScreen].map(gzipBytes)))),
        unit: 'KB gzip',
      });

      const assetsDir = path.join(outDir, 'assets');
      const routeChunks = (await readdir(assetsDir))
        .filter((file) => file.endsWith('.js'))
        .map((file) => path.join(assetsDir, file))
        .filter((file) => !scripts.includes(file));
      const routeSizes = await Promise.all(routeChunks.map(gzipBytes));
      const largest = routeSizes.indexOf(Math.max(...routeSizes));
      if (largest >= 0) {
        ctx.report({
          scenario: 'console-weight',
          measure: `largest route chunk (${chunkName(routeChunks[largest])})`,
          work: `${routeChunks.length} route chunks, ${kilobytes(sum(routeSizes)).toFixed(0)} KB in all`,
          figure: kilobytes(routeSizes[largest]),
          unit: 'KB gzip',
        });
      }

      ctx.report({
        scenario: 'console-weight',
        measure: 'CSS',
        work: files(stylesheets.length),
        figure: kilobytes(sum(await Promise.all(stylesheets.map(gzipBytes)))),
        unit: 'KB gzip',
      });
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  },
};
