import { expect, it } from 'vitest';
import { inActorTransaction } from '../src/db/actor-transaction.ts';
import { isRowVisible } from '../src/modules/auth/session.repository.ts';
import { insertMessage } from './support/message-log-factories.ts';
import { createService } from './support/services-factories.ts';
import { createTwoTenantContext, staffContextOf } from './support/two-tenants.ts';

/** The route guard's visibility check (plugins/guards.ts), isRowVisible. */
const { ctx, home, other } = await createTwoTenantContext();

const visible = (
  context: ReturnType<typeof staffContextOf>,
  table: string,
  id: number,
  companyId: number | null,
) => inActorTransaction(ctx.db, context, (trx) => isRowVisible(trx, table, id, companyId));

it('sees a row of the actor’s own company, never another company’s, and a system admin sees both', async () => {
  const admin = staffContextOf(home, 'company_admin');
  const platform = staffContextOf(home, 'system_admin');
  // Ids of one table that are not ids of another, so a lookup in the wrong table cannot pass.
  for (let i = 0; i < 10; i++) await insertMessage(ctx.ownerDb, { companyId: other.company.id });
  const targets = {
    messages: [
      await insertMessage(ctx.ownerDb, { companyId: home.company.id }),
      await insertMessage(ctx.ownerDb, { companyId: other.company.id }),
    ],
    services: [
      (await createService(ctx.ownerDb, home.company.id)).id,
      (await createService(ctx.ownerDb, other.company.id)).id,
    ],
    companies: [home.company.id, other.company.id],
    users: [home.staff.viewer.id, other.staff.viewer.id],
  };
  for (const [table, [mine, theirs]] of Object.entries(targets)) {
    const keyed = table === 'messages' || table === 'services';
    const companyId = keyed ? home.company.id : null;
    expect(await visible(admin, table, mine, companyId), `${table} mine`).toBe(true);
    // Row-level security hides theirs, whichever company the call names.
    expect(await visible(admin, table, theirs, companyId), `${table} theirs`).toBe(false);
    expect(
      await visible(admin, table, theirs, keyed ? other.company.id : null),
      `${table} theirs, named`,
    ).toBe(false);
    expect(await visible(platform, table, mine, null), `${table} platform`).toBe(true);
    expect(await visible(platform, table, theirs, null), `${table} platform`).toBe(true);
    expect(await visible(admin, table, 999_999_999, companyId), `${table} missing`).toBe(false);
  }
  // Another company's row is not found under its own id with the wrong company either.
  expect(await visible(platform, 'messages', targets.messages[1], home.company.id)).toBe(false);
});

it('refuses a table it does not know', async () => {
  await expect(visible(staffContextOf(home, 'system_admin'), 'subscriptions', 1, null)).rejects.toThrow(
    'no such table',
  );
});
