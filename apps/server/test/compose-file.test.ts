import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.ts';
import { ENGINE_STOP_TIMEOUT_MS } from '../src/messaging/engine.ts';

// compose.yaml cannot be run here (no container engine), so what it asks of the server is checked
// against the server itself: every app service's environment passes loadConfig, its command starts
// a real entry point with a real role, its health check calls a real route, and the balancer's
// upstreams are the API services.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      command?: string[];
      environment?: Record<string, string>;
      healthcheck?: { test: string[] };
      stop_grace_period?: string;
      volumes?: string[];
    }
  >;
};

/** What `docker compose` makes of ${NAME:?message} and ${NAME:-default}, with .env filled in. */
const FILLED: Record<string, string> = {
  POSTGRES_PASSWORD: 'secret',
  APP_DATABASE_PASSWORD: 'app-secret',
  JWT_SECRET: 'j'.repeat(64),
  ENCRYPTION_KEY: 'e'.repeat(64),
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_PASSWORD: 'Harbour-Lantern-42',
};
const interpolate = (value: string) =>
  String(value).replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_match, name: string, kind, rest: string) => {
    if (FILLED[name] !== undefined) return FILLED[name];
    if (kind === '-') return rest;
    throw new Error(`compose.yaml needs ${name}: ${rest}`);
  });

const appServices = Object.entries(compose.services).filter(([, service]) =>
  service.command?.includes('apps/server/src/main.ts'),
);

describe('compose.yaml', () => {
  it('runs two API and two worker processes of the real entry point', () => {
    const roles = appServices.map(([, service]) => service.command![service.command!.indexOf('--role') + 1]);
    expect(roles.sort()).toEqual(['api', 'api', 'worker', 'worker']);
    for (const [, service] of appServices) {
      expect(service.command![0]).toBe('node');
      expect(existsSync(path.join(ROOT, service.command![1]))).toBe(true);
    }
  });

  it.each(appServices.map(([name]) => name))('%s: its environment is a valid configuration', (name) => {
    const environment = Object.fromEntries(
      Object.entries(compose.services[name].environment ?? {}).map(([key, value]) => [
        key,
        interpolate(value),
      ]),
    );
    const config = loadConfig(environment);
    expect(config.databaseUrl).toBe('postgres://sms:secret@postgres:5432/sms');
    expect(config.databaseAppUrl).toBe('postgres://sms_app:app-secret@postgres:5432/sms');
    expect(config.encryptionKey).toBe(FILLED.ENCRYPTION_KEY);
    const role = compose.services[name].command![compose.services[name].command!.indexOf('--role') + 1];
    if (role === 'api') expect(config.trustProxy).toBe(true);
    // A worker has no listener: its simulator must post delivery reports to the balancer.
    if (role === 'worker') expect(config.messaging.simulator.callbackUrl).toBe('http://balancer:8080');
  });

  it('gives a worker more time to stop than its engine waits for running batches', () => {
    const seconds = (duration: string | undefined) => {
      const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration ?? '');
      return match && duration ? Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0) : 10; // Docker's default
    };
    const workers = appServices.filter(([, service]) => service.command!.includes('worker'));
    expect(workers).toHaveLength(2);
    for (const [, service] of workers)
      expect(seconds(service.stop_grace_period)).toBeGreaterThanOrEqual(ENGINE_STOP_TIMEOUT_MS / 1000 + 10);
  });

  it('checks health on the API’s real route, and balances over the API services', () => {
    const apis = appServices.filter(([, service]) => service.command!.includes('api')).map(([name]) => name);
    for (const name of apis)
      expect(compose.services[name].healthcheck?.test.join(' ')).toContain('/api/v1/health');
    const nginx = readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');
    const upstreams = [...nginx.matchAll(/^\s*server\s+([\w-]+):3000/gm)].map((match) => match[1]);
    expect(upstreams.sort()).toEqual(apis.sort());
    expect(compose.services.balancer.volumes).toContain(
      './deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro',
    );
  });
});
