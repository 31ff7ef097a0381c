/**
 * `npm run test:gate`: a test of the test gate itself. In a scratch copy of the repository it
 * plants one kind of failure at a time (a failing test, a throwing hook, a file that cannot be
 * imported, an unhandled rejection, a failing browser test, a lint error, a type error) and checks
 * that `npx vitest run` and `node scripts/test.ts` both exit non-zero and name the failing stage;
 * the same commands on the unplanted copy must exit 0. Then it checks that no embedded
 * PostgreSQL outlived its run. The commands are narrowed to the planted files (the gate's own
 * `--only` and `--vitest-arg`), so the whole check takes a few minutes, not a full `npm test`.
 *
 * Options: `--ref=<commit>` copies that commit instead of the working tree (tracked and untracked,
 * not ignored, files); `--no-e2e` skips the browser cases; `--keep` leaves the scratch copy;
 * `--case=<substring>` runs only the matching cases (the controls always run).
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
for (const arg of args)
  if (!/^--(ref|case)=.+$|^--(no-e2e|keep)$/.test(arg)) {
    process.stderr.write(
      `unknown option ${arg}\nusage: node scripts/check-test-gate.ts [--ref=<commit>] [--no-e2e] [--keep] [--case=<text>]\n`,
    );
    process.exit(2);
  }
const option = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const ref = option('ref');
const caseFilter = option('case');
const withE2e = !args.includes('--no-e2e');
const keep = args.includes('--keep');

const UNIT = 'unit and integration (vitest)';
const E2E = 'browser (playwright, chromium)';

type Expect = { exit: 'zero' | 'non-zero'; failedAt?: string; tests?: 'passed' | 'failed'; output?: RegExp };
type Check = { label: string; command: string[]; expect: Expect };
type Case = { name: string; plants: Record<string, string>; checks: Check[] };

/** `npx vitest run` on the planted file(s) only, through the root config (every project). */
const vitestRun = (filter: string, project?: string): Check => ({
  label: `npx vitest run ${project ? `--project ${project} ` : ''}${filter}`,
  command: ['npx', '--no-install', 'vitest', 'run', ...(project ? ['--project', project] : []), filter],
  expect: { exit: 'non-zero' },
});
/** `node scripts/test.ts` running only `only`, which must stop with `FAILED at: <failedAt>`. */
const gate = (only: string, failedAt: string, extra: string[] = [], runsTests = false): Check => ({
  label: `node scripts/test.ts --only=${only}${extra.length ? ` ${extra.join(' ')}` : ''}`,
  command: [process.execPath, 'scripts/test.ts', `--only=${only}`, ...extra],
  expect: { exit: 'non-zero', failedAt, tests: runsTests ? 'failed' : undefined },
});
const gateUnit = (filter: string) => gate('unit', UNIT, [`--vitest-arg=${filter}`], true);
const gateE2e = (filter: string) => gate('e2e', E2E, [`--playwright-arg=${filter}`], true);
const gateLint = () => gate('lint', 'lint');
const gateTypes = () => gate('types', 'types');
const passing = (check: Check, output?: RegExp): Check => ({
  ...check,
  expect: { exit: 'zero', tests: check.expect.tests ? 'passed' : undefined, output },
});

const SERVER_TEST = 'apps/server/test/zz-gate-plant.test.ts';
const WEB_TEST = 'apps/web/src/zz-gate-plant.test.tsx';
const E2E_SPEC = 'apps/web/e2e/zz-gate-plant.spec.ts';
const BIN = (name: string) => `node_modules/.bin/${name}`;
const realBin = (name: string) => realpathSync(path.join(repo, BIN(name)));
const serverTest = (body: string) =>
  `import pg from 'pg';\nimport { beforeAll, expect, inject, it } from 'vitest';\n\n${body}\n`;

const controls: Case = {
  name: 'clean tree (controls: the same commands must pass)',
  plants: {
    // Proves the filters find something and the real database harness works.
    [SERVER_TEST]: serverTest(`it('reaches the embedded database', async () => {
  const client = new pg.Client({ connectionString: inject('database').adminUrl });
  await client.connect();
  const { rows } = await client.query('select 1 as one');
  await client.end();
  expect(rows[0].one).toBe(1);
});`),
    [WEB_TEST]: `import { render, screen } from '@testing-library/react';
import { expect, it } from 'vitest';

it('renders', () => {
  render(<p>planted</p>);
  expect(screen.getByText('planted')).toBeInTheDocument();
});
`,
    ...(withE2e && {
      [E2E_SPEC]: `import { expect, test } from '@playwright/test';

test('the API answers', async ({ request }) => {
  expect((await request.get('/api/v1/health')).ok()).toBe(true);
});

test('fails once, passes on the retry (flaky)', async ({ request }, testInfo) => {
  expect((await request.get('/api/v1/health')).ok()).toBe(true);
  expect(testInfo.retry).toBe(1);
});
`,
    }),
  },
  checks: [
    passing(vitestRun('zz-gate-plant')),
    passing(gateUnit('zz-gate-plant')),
    passing(gateLint()),
    passing(gateTypes()),
    ...(withE2e ? [passing(gateE2e('zz-gate-plant'), /^flaky: 1 /m)] : []),
  ],
};

const allCases: Case[] = [
  {
    name: 'a failing `it` in a server test',
    plants: { [SERVER_TEST]: serverTest(`it('planted failure', () => {\n  expect(1).toBe(2);\n});`) },
    checks: [vitestRun('zz-gate-plant'), vitestRun('zz-gate-plant', 'server'), gateUnit('zz-gate-plant')],
  },
  {
    name: 'a failing web component test',
    plants: {
      [WEB_TEST]: `import { render, screen } from '@testing-library/react';
import { expect, it } from 'vitest';

it('planted failure', () => {
  render(<p>planted</p>);
  expect(screen.getByText('planted')).toHaveTextContent('something else');
});
`,
    },
    checks: [vitestRun('zz-gate-plant', 'web'), gateUnit('zz-gate-plant')],
  },
  {
    name: 'a throwing beforeAll',
    plants: {
      [SERVER_TEST]: serverTest(`beforeAll(() => {
  throw new Error('planted setup failure');
});

it('never runs', () => {
  expect(1).toBe(1);
});`),
    },
    checks: [vitestRun('zz-gate-plant'), gateUnit('zz-gate-plant')],
  },
  {
    name: 'a test file that cannot be imported',
    plants: {
      [SERVER_TEST]: `import { expect, it } from 'vitest';\nimport '../src/no-such-module-planted.ts';\n\nit('never runs', () => {\n  expect(1).toBe(1);\n});\n`,
    },
    checks: [vitestRun('zz-gate-plant'), gateUnit('zz-gate-plant')],
  },
  {
    name: 'an unhandled rejection inside a passing test',
    plants: {
      [SERVER_TEST]: serverTest(`it('passes but leaves a rejection behind', () => {
  Promise.reject(new Error('planted unhandled rejection'));
  expect(1).toBe(1);
});`),
    },
    checks: [vitestRun('zz-gate-plant'), gateUnit('zz-gate-plant')],
  },
  ...(withE2e
    ? [
        {
          name: 'a failing Playwright test',
          plants: {
            [E2E_SPEC]: `import { expect, test } from '@playwright/test';

test('planted failure', async ({ request }) => {
  expect((await request.get('/api/v1/health')).status()).toBe(599);
});
`,
          },
          // No retry: a failure is a failure on its first attempt too, and a retry costs time.
          checks: [
            gate('e2e', E2E, ['--playwright-arg=zz-gate-plant', '--playwright-arg=--retries=0'], true),
          ],
        },
        {
          name: 'a Playwright spec that cannot be loaded (an error outside the tests)',
          plants: { [E2E_SPEC]: `import '../src/no-such-module-planted.ts';\n` },
          checks: [gateE2e('zz-gate-plant')],
        },
      ]
    : []),
  {
    name: 'vitest exits 0 despite a failing test (the original defect, simulated)',
    plants: {
      [SERVER_TEST]: serverTest(`it('planted failure', () => {\n  expect(1).toBe(2);\n});`),
      [BIN('vitest')]: `#!/bin/sh\n'${realBin('vitest')}' "$@"\nexit 0\n`,
    },
    checks: [gateUnit('zz-gate-plant')],
  },
  {
    name: 'vitest exits 0 and writes no report',
    plants: { [BIN('vitest')]: '#!/bin/sh\nexit 0\n' },
    checks: [gateUnit('zz-gate-plant')],
  },
  ...(withE2e
    ? [
        {
          name: 'Playwright exits 0 and writes no report',
          plants: { [BIN('playwright')]: '#!/bin/sh\nexit 0\n' },
          checks: [gateE2e('zz-gate-plant')],
        },
      ]
    : []),
  {
    name: 'a lint error',
    plants: { 'scripts/zz-gate-plant.ts': `export function planted() {\n  debugger;\n}\n` },
    checks: [gateLint()],
  },
  {
    name: 'a type error',
    plants: { 'packages/contracts/src/zz-gate-plant.ts': `export const planted: number = 'not a number';\n` },
    checks: [gateTypes()],
  },
];
const cases = allCases.filter((entry) => !caseFilter || entry.name.includes(caseFilter));

// ---------------------------------------------------------------------------------------------

const started = Date.now();
const scratch = makeScratchCopy();
// Under .tmp, which lint and the type checks skip.
const osTmp = path.join(scratch, '.tmp', 'os-tmp');
mkdirSync(osTmp, { recursive: true, mode: 0o755 });
chmodSync(path.dirname(osTmp), 0o755);
const logs = path.join(scratch, '.tmp', 'gate-logs');
mkdirSync(logs);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${path.join(scratch, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  // The embedded PostgreSQL's data folders land here, so leftovers are this run's and visible.
  TMPDIR: osTmp,
  E2E_PORT: String(await findFreePort()),
  CI: '1',
  FORCE_COLOR: '0',
  NO_COLOR: '1',
};
delete env.TEST_DATABASE_URL;
delete env.VITEST_GATE_REPORT;

type Outcome = { caseName: string; label: string; ok: boolean; detail: string };
const outcomes: Outcome[] = [];
let runNumber = 0;

process.stdout.write(`test gate check in ${scratch}${ref ? ` (commit ${ref})` : ' (working tree)'}\n`);
for (const entry of [controls, ...cases]) runCase(entry);
checkNoPostgresLeft();

const failed = outcomes.filter((outcome) => !outcome.ok);
process.stdout.write(`\n${outcomes.length - failed.length} of ${outcomes.length} checks held`);
process.stdout.write(` (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
if (failed.length > 0) {
  process.stdout.write('THE TEST GATE CAN PASS FALSELY (or a control failed):\n');
  for (const outcome of failed)
    process.stdout.write(`  ✗ ${outcome.caseName}: ${outcome.label}: ${outcome.detail}\n`);
}
if (keep || failed.length > 0) process.stdout.write(`scratch copy kept: ${scratch} (logs in ${logs})\n`);
else rmSync(scratch, { recursive: true, force: true });
process.exit(failed.length > 0 ? 1 : 0);

function runCase(entry: Case) {
  process.stdout.write(`\n● ${entry.name}\n`);
  const restores = Object.entries(entry.plants).map(([file, content]) => plant(file, content));
  try {
    for (const check of entry.checks) {
      const checkStart = Date.now();
      const log = path.join(logs, `${String(++runNumber).padStart(2, '0')}.log`);
      const result = spawnSync(check.command[0], check.command.slice(1), {
        cwd: scratch,
        env,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
        timeout: 10 * 60_000,
      });
      const output = `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
      writeFileSync(log, `$ ${check.command.join(' ')}\n${output}`);
      const problems = judge(check.expect, result, output);
      const seconds = ((Date.now() - checkStart) / 1000).toFixed(1);
      const status = result.error ? result.error.message : (result.signal ?? `exit ${result.status}`);
      const ok = problems.length === 0;
      const summary = output.match(/^tests: .*$/m)?.[0];
      process.stdout.write(
        `  ${ok ? '✓' : '✗'} ${check.label} → ${status}${summary ? `, ${summary}` : ''} (${seconds} s)\n`,
      );
      if (!ok) {
        process.stdout.write(`    ${problems.join('; ')} (log: ${log})\n`);
        process.stdout.write(indent(output.trimEnd().split('\n').slice(-25).join('\n'), '    | '));
      }
      outcomes.push({ caseName: entry.name, label: check.label, ok, detail: problems.join('; ') });
    }
  } finally {
    for (const restore of restores) restore();
  }
}

/** Writes a planted file (an executable one when it starts with `#!`); returns how to undo it. */
function plant(file: string, content: string) {
  const target = path.join(scratch, file);
  mkdirSync(path.dirname(target), { recursive: true });
  if (!realpathSync(path.dirname(target)).startsWith(realpathSync(scratch) + path.sep))
    throw new Error(`refusing to plant ${file}: its folder lies outside the scratch copy`);
  const link = lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()
    ? readlinkSync(target)
    : undefined;
  const original = !link && existsSync(target) ? readFileSync(target) : undefined;
  // Removed first: writing through a link into node_modules would change the real install.
  rmSync(target, { force: true });
  writeFileSync(target, content, { mode: content.startsWith('#!') ? 0o755 : 0o644 });
  return () => {
    rmSync(target, { force: true });
    if (link) symlinkSync(link, target);
    if (original) writeFileSync(target, original);
  };
}

function judge(expect: Expect, result: SpawnSyncReturns<string>, output: string) {
  const problems: string[] = [];
  if (result.error || result.signal)
    problems.push(`did not finish (${result.error?.message ?? result.signal})`);
  else if (expect.exit === 'zero' && result.status !== 0)
    problems.push(`expected exit 0, got ${result.status}`);
  else if (expect.exit === 'non-zero' && result.status === 0)
    problems.push('expected a non-zero exit, got 0');
  const failedAt = output.match(/^FAILED at: (.*)$/m)?.[1];
  if (expect.failedAt && failedAt !== expect.failedAt)
    problems.push(
      `expected "FAILED at: ${expect.failedAt}", got ${failedAt ? `"FAILED at: ${failedAt}"` : 'none'}`,
    );
  if (expect.exit === 'zero' && failedAt) problems.push(`unexpected "FAILED at: ${failedAt}"`);
  if (expect.failedAt || (expect.exit === 'zero' && expect.tests)) {
    const counts = output.match(/^tests: (\d+) passed, (\d+) failed, (\d+) skipped$/m);
    if (!counts) problems.push('no closing line `tests: N passed, N failed, N skipped`');
    else if (expect.tests === 'failed' && Number(counts[2]) === 0)
      problems.push('the closing line says 0 failed');
    else if (expect.tests === 'passed' && (Number(counts[2]) > 0 || Number(counts[1]) === 0))
      problems.push(`the closing line should show passed tests and 0 failed: "${counts[0]}"`);
  }
  if (expect.output && !expect.output.test(output)) problems.push(`output lacks ${expect.output}`);
  return problems;
}

/** A copy of the repository's files with the installed node_modules linked in (not copied). */
function makeScratchCopy() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sms-test-gate-'));
  // As root the embedded PostgreSQL runs as the `postgres` user, which must reach its data folder.
  chmodSync(dir, 0o755);
  if (ref) {
    const archive = spawnSync('git', ['archive', '--format=tar', ref], { cwd: repo, maxBuffer: 1 << 30 });
    if (archive.status !== 0) throw new Error(`git archive ${ref} failed: ${archive.stderr}`);
    const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
    if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  } else {
    const listing = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: repo,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    if (listing.status !== 0) throw new Error(`git ls-files failed: ${listing.stderr}`);
    for (const file of listing.stdout.split('\0').filter(Boolean)) {
      if (!existsSync(path.join(repo, file))) continue; // deleted in the working tree
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      copyFileSync(path.join(repo, file), path.join(dir, file));
    }
  }
  linkNodeModules(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), dir);
  return dir;
}

/**
 * Links each installed package; the workspace links (`@sms/*` -> ../../apps/...) are recreated
 * relative to the copy, so the copy imports its own packages; tool caches are left out.
 */
function linkNodeModules(from: string, to: string, copyRoot: string) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (['.vite', '.vite-temp', '.vitest-cache', '.cache'].includes(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isSymbolicLink() && !path.isAbsolute(readlinkSync(source))) {
      const pointsTo = path.resolve(from, readlinkSync(source));
      if (pointsTo.startsWith(repo + path.sep) && !pointsTo.includes(`${path.sep}node_modules${path.sep}`)) {
        symlinkSync(path.relative(to, path.join(copyRoot, path.relative(repo, pointsTo))), target);
        continue;
      }
    }
    // Scopes and .bin are linked entry by entry, so a case can swap one runner for a fake.
    if (entry.isDirectory() && (entry.name.startsWith('@') || entry.name === '.bin'))
      linkNodeModules(source, target, copyRoot);
    else symlinkSync(source, target);
  }
}

/** No PostgreSQL of this check's runs may survive them: their data folders are all in the copy. */
function checkNoPostgresLeft() {
  process.stdout.write('\n● no embedded PostgreSQL left behind\n');
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  const left = ps.stdout
    .split('\n')
    .filter((line) => line.includes(`postgres -D ${scratch}${path.sep}`) || line.includes(`-D ${osTmp}`));
  const dirs = readdirSync(osTmp).filter((name) => name.startsWith('sms-test-pg-'));
  const problems = [
    ...left.map((line) => `still running: ${line.trim()}`),
    ...dirs.map((name) => `data folder left: ${path.join(osTmp, name)}`),
  ];
  const ok = problems.length === 0;
  process.stdout.write(`  ${ok ? '✓' : '✗'} no postgres process or data folder from this check remains\n`);
  for (const problem of problems) process.stdout.write(`    ${problem}\n`);
  outcomes.push({ caseName: 'cleanup', label: 'postgres processes', ok, detail: problems.join('; ') });
}

function indent(text: string, prefix: string) {
  return `${text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n')}\n`;
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
