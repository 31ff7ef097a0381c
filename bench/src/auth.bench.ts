import { hashPassword } from '../../apps/server/src/modules/auth/passwords.ts';
import { startBenchApp } from './support/bench-app.ts';
import { measure, printTable } from './support/measure.ts';

// The sign-in path (argon2id verify) and the per-request authentication every API call pays.
const bench = await startBenchApp();
try {
  const { db } = bench.deps;
  const company = await db
    .insertInto('companies')
    .values({ name: 'Bench Co', email: 'bench@co.test', phone_number: '+254700000000', address: 'x' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('users')
    .values({
      name: 'Bench User',
      email: 'bench@user.test',
      password_hash: await hashPassword('Password123!'),
      role: 'company_admin',
      company_id: company.id,
    })
    .execute();
  const signIn = () =>
    bench.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'bench@user.test', password: 'Password123!' },
    });
  const session = (await signIn()).json().data;
  let refreshToken: string = session.refreshToken;

  printTable('auth (app.inject, embedded PostgreSQL)', [
    await measure('POST /auth/login (argon2id verify)', 40, signIn),
    await measure('GET /auth/profile (token + live session check)', 500, () =>
      bench.app.inject({
        method: 'GET',
        url: '/api/v1/auth/profile',
        headers: { authorization: `Bearer ${session.accessToken}` },
      }),
    ),
    await measure('POST /auth/refresh (rotation)', 200, async () => {
      const response = await bench.app.inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        payload: { refreshToken },
      });
      refreshToken = response.json().data.refreshToken;
    }),
    await measure('GET /health', 500, () => bench.app.inject({ method: 'GET', url: '/api/v1/health' })),
  ]);
} finally {
  await bench.close();
}
