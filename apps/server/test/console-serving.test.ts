import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../src/app.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let app: App;
let consoleDir: string;
beforeAll(async () => {
  ctx = await createTestContext();
  // A console build as Vite writes it: index.html, public files, hashed assets (and a map file).
  consoleDir = await mkdtemp(path.join(os.tmpdir(), 'sms-console-'));
  await mkdir(path.join(consoleDir, 'assets'));
  await writeFile(path.join(consoleDir, 'index.html'), '<!doctype html><title>SMS Console</title>');
  await writeFile(path.join(consoleDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(
    path.join(consoleDir, 'assets/index-C0ffee12.js'),
    'console.log(1)\n//# sourceMappingURL=x',
  );
  await writeFile(
    path.join(consoleDir, 'assets/index-C0ffee12.js.map'),
    '{"version":3,"sources":["src/main.tsx"]}',
  );
  app = await buildApp({ ...ctx.deps, config: { ...ctx.config, consoleDir } }, { serveConsole: true });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await ctx.close();
  await rm(consoleDir, { recursive: true, force: true });
});

describe('console routes', () => {
  it('answers HEAD on a client route like GET, without a body', async () => {
    const get = await app.inject({ method: 'GET', url: '/admin/audit' });
    const head = await app.inject({ method: 'HEAD', url: '/admin/audit' });
    expect(get.statusCode).toBe(200);
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(String(head.headers['content-type'])).toMatch(/^text\/html/);
    expect(head.body).toBe('');
    expect(get.body).toContain('SMS Console');
  });

  it('makes the fallback page revalidate on every use, with a validator for a cheap 304', async () => {
    for (const url of ['/dashboard', '/', '/index.html']) {
      const page = await app.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['last-modified'] ?? page.headers.etag).toBeTruthy();
    }
    expect((await app.inject({ method: 'GET', url: '/favicon.svg' })).headers['cache-control']).toBe(
      'no-cache',
    );
  });

  it('lets hashed assets be cached for good', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/index-C0ffee12.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('never serves source maps, and a missing asset is a 404 rather than the page', async () => {
    for (const url of ['/assets/index-C0ffee12.js.map', '/assets/index-0ld.js', '/assets/gone.css']) {
      for (const method of ['GET', 'HEAD'] as const) {
        const answer = await app.inject({ method, url });
        expect(answer.statusCode, `${method} ${url}`).toBe(404);
        expect(answer.body).not.toContain('sources');
      }
    }
  });

  it('keeps API 404s and other methods in the JSON envelope', async () => {
    const api = await app.inject({ method: 'HEAD', url: '/api/v1/nothing-here' });
    expect(api.statusCode).toBe(404);
    const post = await app.inject({ method: 'POST', url: '/dashboard' });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toMatchObject({ success: false, error: 'not_found' });
  });
});
