import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeProviderSettings } from '../src/modules/admin/companies.repository.ts';
import { startFakeSmsc } from './support/fake-smsc.ts';
import {
  createSendingCompany,
  ENCRYPTION_KEY,
  signInSystemAdmin,
  startWorker,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * An SMPP company's link is bound as soon as a worker runs and as soon as its settings change, not
 * on its first send: receipts of earlier sends and handset messages arrive only over a bound link.
 */
let ctx: TestContext;
let systemAdmin: Record<string, string>;
const atStartCredentials = { systemId: 'at-start', password: 'pw-start' };
const changedCredentials = { systemId: 'changed', password: 'pw-chg' };
let smscAtStart: Awaited<ReturnType<typeof startFakeSmsc>>;
let smscChanged: Awaited<ReturnType<typeof startFakeSmsc>>;

const smppSettings = (smsc: { host: string; port: number }, systemId: string) => ({
  kind: 'smpp' as const,
  host: smsc.host,
  port: smsc.port,
  systemId,
  systemType: null,
  bindMode: 'transceiver' as const,
  messageIdType: 'auto' as const,
  messagesPerSecond: 50,
  window: 5,
  sourceTon: null,
  sourceNpi: null,
});

beforeAll(async () => {
  ctx = await createTestContext();
  smscAtStart = await startFakeSmsc(atStartCredentials);
  smscChanged = await startFakeSmsc(changedCredentials);
  systemAdmin = await signInSystemAdmin(ctx);
  // A company already on SMPP when the worker starts.
  const tenant = await createSendingCompany(ctx);
  await writeProviderSettings(
    ctx.ownerDb,
    tenant.company.id,
    { ...smppSettings(smscAtStart, atStartCredentials.systemId), password: null },
    { action: 'set', value: atStartCredentials.password },
    ENCRYPTION_KEY,
  );
  await ctx.ownerDb
    .updateTable('companies')
    .set({ sms_provider: 'smpp' })
    .where('id', '=', tenant.company.id)
    .execute();
  await startWorker(ctx);
});
afterAll(async () => {
  await ctx?.close();
  await smscAtStart?.close();
  await smscChanged?.close();
});

describe('SMPP links', () => {
  it('a company stored on SMPP is bound when the worker starts, before any send', async () => {
    await waitFor(
      async () => smscAtStart.boundSessions(),
      (sessions) => sessions.includes('bind_transceiver'),
      { what: 'the company’s link bound' },
    );
    expect(smscAtStart.submits).toHaveLength(0);
  });

  it('a company moved to SMPP in the company form is bound at once, before any send', async () => {
    const tenant = await createSendingCompany(ctx);
    const response = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/admin/companies/${tenant.company.id}`,
      headers: systemAdmin,
      payload: {
        name: tenant.company.name,
        email: `c${tenant.company.id}@co.test`,
        phoneNumber: '+254700',
        address: 'Road',
        provider: { ...smppSettings(smscChanged, changedCredentials.systemId), ...changedCredentials },
      },
    });
    expect(response.statusCode, response.body).toBe(200);

    await waitFor(
      async () => smscChanged.boundSessions(),
      (sessions) => sessions.includes('bind_transceiver'),
      { what: 'the company’s link bound after the change' },
    );
    expect(smscChanged.submits).toHaveLength(0);
  });
});
