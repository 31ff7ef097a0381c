import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  importCircles,
  messagingReachingHttp,
  readSourceTree,
  routesReachingData,
  sourceTreeOf,
  sqlOutsideRepositories,
} from './support/import-graph.ts';

const tree = readSourceTree(path.join(import.meta.dirname, '../src'));

describe('the server is layered: routes -> services -> repositories -> db', () => {
  it('reads the import graph (a check of the parser: app.ts mounts the routes)', () => {
    expect(tree.get('app.ts')?.imports).toContain('routes.ts');
    expect(tree.get('routes.ts')?.imports).toContain('modules/auth/auth.routes.ts');
    expect(tree.size).toBeGreaterThan(100);
  });

  it('has no import circle', () => {
    expect(importCircles(tree)).toEqual([]);
  });

  it('routes import no repository and nothing of db/ but its table types', () => {
    expect(routesReachingData(tree)).toEqual([]);
  });

  it('messaging/ reaches no HTTP code', () => {
    expect(messagingReachingHttp(tree)).toEqual([]);
  });

  it('holds SQL only in repositories (and db/, and the engine)', () => {
    expect(sqlOutsideRepositories(tree)).toEqual([]);
  });
});

// Each rule run on a tree with a planted breach: a rule that found nothing there would pass above for nothing.
describe('each rule finds a planted breach', () => {
  it('a circle, type-only imports included', () => {
    const planted = sourceTreeOf({
      'app.ts': "import { registerRoutes } from './routes.ts';",
      'routes.ts': "import { authRoutes } from './modules/auth/auth.routes.ts';",
      'modules/auth/auth.routes.ts':
        "import type { App } from '../../app.ts';\nexport function authRoutes() {}",
      'lib/alone.ts': "import { x } from './alone.ts';",
    });
    expect(importCircles(planted)).toEqual([
      ['app.ts', 'modules/auth/auth.routes.ts', 'routes.ts'],
      ['lib/alone.ts'],
    ]);
  });

  it('a route importing a repository or db/', () => {
    const planted = sourceTreeOf({
      'modules/audit/audit.routes.ts': [
        "import type { AuditLogRow } from '../../db/schema.ts';",
        "import { inActorTransaction } from '../../db/actor-transaction.ts';",
        'import {',
        '  listAuditLogs,',
        "} from './audit.repository.ts';",
        "import { listAuditEntries } from './audit.service.ts';",
      ].join('\n'),
      'db/schema.ts': '',
      'db/actor-transaction.ts': '',
      'modules/audit/audit.repository.ts': '',
      'modules/audit/audit.service.ts': '',
    });
    expect(routesReachingData(planted)).toEqual([
      'modules/audit/audit.routes.ts imports db/actor-transaction.ts',
      'modules/audit/audit.routes.ts imports modules/audit/audit.repository.ts',
    ]);
  });

  it('messaging reaching a route, through a helper too', () => {
    const planted = sourceTreeOf({
      'messaging/fan-out.ts': "import { limits } from '../modules/plans/plan-limits.ts';",
      'messaging/dispatch.ts':
        "import { ONE_ACCEPTED } from '../modules/provider-callbacks/dlr-callback.routes.ts';",
      'modules/plans/plan-limits.ts': "import { guard } from '../../plugins/guards.ts';",
      'modules/provider-callbacks/dlr-callback.routes.ts': '',
      'plugins/guards.ts': "import type { FastifyInstance } from 'fastify';",
    });
    expect(messagingReachingHttp(planted)).toEqual([
      'messaging/fan-out.ts -> modules/plans/plan-limits.ts -> plugins/guards.ts',
      'messaging/dispatch.ts -> modules/provider-callbacks/dlr-callback.routes.ts',
    ]);
  });

  it('SQL in a service, a plugin or a route, not in a repository, db/ or messaging/', () => {
    const query = "await trx.selectFrom('users').select('id').execute();";
    const planted = sourceTreeOf({
      'modules/auth/auth.service.ts': query,
      'plugins/guards.ts': 'await sql<{\n  visible: boolean;\n}>`select app_row_visible(1)`.execute(trx);',
      'modules/health/health.routes.ts': "await sql.raw('select 1').execute(db);",
      'modules/auth/auth.repository.ts': query,
      'modules/auth/session-repository.ts': query,
      'db/tenant-scope.ts': query,
      'messaging/engine.ts': query,
      // A comment about a query is not one; a transaction is not SQL.
      'modules/auth/passwords.ts':
        "// trx.selectFrom('users') lives in the repository\nawait db.transaction().execute(work);",
    });
    expect(sqlOutsideRepositories(planted)).toEqual([
      'modules/auth/auth.service.ts: .selectFrom(',
      'plugins/guards.ts: sql<{\n  visible: boolean;\n}>`',
      'modules/health/health.routes.ts: sql.raw(',
    ]);
  });
});
