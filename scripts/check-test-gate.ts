/**
 * `npm run test:gate`: tests `npm test` itself. In a scratch copy of the working tree it plants
 * one failure at a time (a failing test, a throwing hook or global setup, an unimportable file, an
 * unhandled rejection, a failing or unloadable browser spec, a runner that exits 0 anyway, a lint
 * error, a type error) and checks that `node scripts/test.ts`, narrowed to the planted files,
 * exits non-zero naming the stage and a non-zero failed count; unplanted, the same runs pass.
 * Last, no embedded PostgreSQL of these runs may be left. Options: `--no-e2e`, `--keep`.
 */
import { spawnSync } from 'node:child_process';
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
const withE2e = !process.argv.includes('--no-e2e');
const SERVER_TEST = 'apps/server/test/zz-gate-plant.test.ts';
const WEB_TEST = 'apps/web/src/zz-gate-plant.test.tsx';
const E2E_SPEC = 'apps/web/e2e/zz-gate-plant.spec.ts';
const GLOBAL_SETUP = 'apps/server/test/support/global-setup.ts';
const STAGES = {
  lint: 'lint',
  types: 'types',
  unit: 'unit and integration (vitest)',
  e2e: 'browser (playwright, chromium)',
};
type StageId = keyof typeof STAGES;
const ARGS: Record<StageId, string[]> = {
  lint: [],
  types: [],
  unit: ['--vitest-arg=zz-gate-plant'],
  e2e: ['--playwright-arg=zz-gate-plant', '--playwright-arg=--retries=0'],
};

const serverTest = (body: string) =>
  `import pg from 'pg';\nimport { beforeAll, expect, inject, it } from 'vitest';\n\n${body}\n`;
const webTest = (expectation: string) =>
  `import { render, screen } from '@testing-library/react';\nimport { expect, it } from 'vitest';\n\nit('renders', () => {\n  render(<p>planted</p>);\n  expect(screen.getByText('planted'))${expectation};\n});\n`;
const e2eSpec = (status: number) =>
  `import { expect, test } from '@playwright/test';\n\ntest('the API answers', async ({ request }) => {\n  expect((await request.get('/api/v1/health')).status()).toBe(${status});\n});\n`;
const fakeBin = (script: string) => `#!/bin/sh\n${script}\n`;
const failingIt = serverTest(`it('planted failure', () => {\n  expect(1).toBe(2);\n});`);

type Case = { name: string; stage: StageId; plants: Record<string, string> };
const controls: Record<string, string> = {
  // Proves the filters find the planted files and the real database harness works.
  [SERVER_TEST]: serverTest(`it('reaches the embedded database', async () => {
  const client = new pg.Client({ connectionString: inject('database').adminUrl });
  await client.connect();
  expect((await client.query('select 1 as one')).rows[0].one).toBe(1);
  await client.end();
});`),
  [WEB_TEST]: webTest('.toBeInTheDocument()'),
  ...(withE2e && { [E2E_SPEC]: e2eSpec(200) }),
};
const cases: Case[] = [
  { name: 'a failing `it` in a server test', stage: 'unit', plants: { [SERVER_TEST]: failingIt } },
  {
    name: 'a failing web component test',
    stage: 'unit',
    plants: { [WEB_TEST]: webTest(".toHaveTextContent('else')") },
  },
  {
    name: 'a throwing beforeAll',
    stage: 'unit',
    plants: {
      [SERVER_TEST]: serverTest(
        `beforeAll(() => {\n  throw new Error('planted');\n});\n\nit('never runs', () => {});`,
      ),
    },
  },
  {
    name: 'a throwing global setup',
    stage: 'unit',
    plants: {
      [GLOBAL_SETUP]: `export default function setup() {\n  throw new Error('planted global setup failure');\n}\n`,
    },
  },
  {
    name: 'a test file that cannot be imported',
    stage: 'unit',
    plants: { [SERVER_TEST]: `import '../src/no-such-module-planted.ts';\n` },
  },
  {
    name: 'an unhandled rejection in a passing test',
    stage: 'unit',
    plants: {
      [SERVER_TEST]: serverTest(
        `it('passes', () => {\n  Promise.reject(new Error('planted'));\n  expect(1).toBe(1);\n});`,
      ),
    },
  },
  {
    name: 'vitest exits 0 despite a failing test',
    stage: 'unit',
    plants: {
      [SERVER_TEST]: failingIt,
      'node_modules/.bin/vitest': fakeBin(
        `'${realpathSync(path.join(repo, 'node_modules/.bin/vitest'))}' "$@"\nexit 0`,
      ),
    },
  },
  {
    name: 'vitest exits 0 and writes no report',
    stage: 'unit',
    plants: { 'node_modules/.bin/vitest': fakeBin('exit 0') },
  },
  ...(withE2e
    ? ([
        { name: 'a failing Playwright test', stage: 'e2e', plants: { [E2E_SPEC]: e2eSpec(599) } },
        {
          name: 'a Playwright spec that cannot be loaded',
          stage: 'e2e',
          plants: { [E2E_SPEC]: `import '../src/no-such-module-planted.ts';\n` },
        },
        {
          name: 'Playwright exits 0 and writes no report',
          stage: 'e2e',
          plants: { 'node_modules/.bin/playwright': fakeBin('exit 0') },
        },
      ] satisfies Case[])
    : []),
  {
    name: 'a lint error',
    stage: 'lint',
    plants: { 'scripts/zz-gate-plant.ts': 'export function planted() {\n  debugger;\n}\n' },
  },
  {
    name: 'a type error',
    stage: 'types',
    plants: { 'packages/contracts/src/zz-gate-plant.ts': "export const planted: number = 'text';\n" },
  },
];

const started = Date.now();
const scratch = makeScratchCopy();
// The embedded PostgreSQL's data folders land here (under .tmp, which lint and types skip).
const osTmp = path.join(scratch, '.tmp', 'os-tmp');
mkdirSync(osTmp, { recursive: true });
const env: NodeJS.ProcessEnv = {
  ...process.env,
  TMPDIR: osTmp,
  E2E_PORT: String(await freePort()),
  CI: '1',
  NO_COLOR: '1',
};
delete env.TEST_DATABASE_URL;
const failures: string[] = [];

process.stdout.write(`test gate check in ${scratch}\n\n● controls: the unplanted runs pass\n`);
withPlants(controls, () => {
  for (const stage of Object.keys(STAGES) as StageId[])
    if (stage !== 'e2e' || withE2e) check('control', stage, true);
});
for (const entry of cases)
  withPlants({ ...controls, ...entry.plants }, () => check(entry.name, entry.stage, false));

const left = spawnSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
  .stdout.split('\n')
  .filter((line) => line.includes(osTmp) || line.includes(`-D ${scratch}`));
const folders = readdirSync(osTmp).filter((name) => name.startsWith('sms-test-pg-'));
if (left.length + folders.length > 0)
  failures.push(`embedded PostgreSQL left behind: ${[...left, ...folders].join('; ')}`);
process.stdout.write(
  `\n${failures.length === 0 ? 'the gate held' : 'THE GATE CAN PASS FALSELY (or a control failed)'} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
);
for (const failure of failures) process.stdout.write(`  ✗ ${failure}\n`);
if (failures.length > 0 || process.argv.includes('--keep'))
  process.stdout.write(`scratch copy kept: ${scratch}\n`);
else rmSync(scratch, { recursive: true, force: true });
process.exit(failures.length > 0 ? 1 : 0);

function check(name: string, stage: StageId, shouldPass: boolean) {
  const checkStart = Date.now();
  const result = spawnSync(process.execPath, ['scripts/test.ts', `--only=${stage}`, ...ARGS[stage]], {
    cwd: scratch,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    timeout: 10 * 60_000,
  });
  const output = `${result.stdout}\n${result.stderr}`;
  const failedAt = output.match(/^FAILED at: (.*)$/m)?.[1];
  const counts = output.match(/^tests: (\d+) passed, (\d+) failed, \d+ skipped$/m);
  const testStage = stage === 'unit' || stage === 'e2e';
  const problems = shouldPass
    ? [
        result.status !== 0 && `exit ${result.status ?? result.signal}`,
        failedAt && `FAILED at: ${failedAt}`,
        testStage &&
          !(Number(counts?.[1]) > 0 && counts?.[2] === '0') &&
          `closing line ${counts?.[0] ?? 'missing'}`,
      ]
    : [
        result.status === 0 && 'exit 0',
        failedAt !== STAGES[stage] && `FAILED at: ${failedAt ?? 'missing'}`,
        !(Number(counts?.[2]) > 0) && `closing line ${counts?.[0] ?? 'missing'}`,
      ];
  const found = problems.filter((problem): problem is string => typeof problem === 'string');
  const line = `${name}: ${stage}, ${counts?.[0] ?? `exit ${result.status}`} (${((Date.now() - checkStart) / 1000).toFixed(0)} s)`;
  process.stdout.write(`  ${found.length === 0 ? '✓' : '✗'} ${line}\n`);
  if (found.length > 0) {
    failures.push(`${line}: ${found.join(', ')}`);
    process.stdout.write(
      output
        .trimEnd()
        .split('\n')
        .slice(-20)
        .map((text) => `    | ${text}\n`)
        .join(''),
    );
  }
}

/** Writes the files (a `#!` one executable) for the duration of `body`, then restores the copy. */
function withPlants(plants: Record<string, string>, body: () => void) {
  const saved = Object.keys(plants).map((file) => {
    const target = path.join(scratch, file);
    const link = lstatSync(target, { throwIfNoEntry: false })?.isSymbolicLink()
      ? readlinkSync(target)
      : undefined;
    const original = !link && existsSync(target) ? readFileSync(target) : undefined;
    rmSync(target, { force: true }); // never write through a link into the real node_modules
    writeFileSync(target, plants[file], { mode: plants[file].startsWith('#!') ? 0o755 : 0o644 });
    return { target, link, original };
  });
  try {
    body();
  } finally {
    for (const { target, link, original } of saved) {
      rmSync(target, { force: true });
      if (link) symlinkSync(link, target);
      if (original) writeFileSync(target, original);
    }
  }
}

/** The working tree's files (tracked and untracked, not ignored), node_modules linked in. */
function makeScratchCopy() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sms-test-gate-'));
  chmodSync(dir, 0o755); // as root, the embedded PostgreSQL runs as `postgres`, which must reach it
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  for (const file of files.stdout.split('\0').filter((name) => name && existsSync(path.join(repo, name)))) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(path.join(repo, file), path.join(dir, file));
  }
  linkNodeModules(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), dir);
  return dir;
}

/** Links each package; workspace links point into the copy; .bin and scopes entry by entry, so a case can swap one. */
function linkNodeModules(from: string, to: string, copy: string) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (['.vite', '.vite-temp', '.vitest-cache', '.cache'].includes(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    const pointsTo = entry.isSymbolicLink() ? path.resolve(from, readlinkSync(source)) : '';
    if (pointsTo.startsWith(repo + path.sep) && !pointsTo.includes(`${path.sep}node_modules${path.sep}`))
      symlinkSync(path.relative(to, path.join(copy, path.relative(repo, pointsTo))), target);
    else if (entry.isDirectory() && (entry.name.startsWith('@') || entry.name === '.bin'))
      linkNodeModules(source, target, copy);
    else symlinkSync(source, target);
  }
}

function freePort() {
  return new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
