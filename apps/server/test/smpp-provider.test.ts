import { PROVIDER_MESSAGES } from '@sms/contracts/admin/company-provider';
import type { Pdu } from 'smpp';
import smpp from 'smpp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPublicAddressPolicy,
  type PublicAddressPolicy,
  type Resolve,
} from '../src/lib/public-address.ts';
import type { DeliveryUpdate, OutboundSms, SmsProvider } from '../src/messaging/providers/provider.ts';
import { createSmppProvider, type SmppConfig } from '../src/messaging/providers/smpp.ts';
import { parseSmppReceipt } from '../src/messaging/providers/smpp-receipt.ts';
import { startFakeSmsc } from './support/fake-smsc.ts';

const credentials = { systemId: 'acme', password: 'secret12' };
let smsc: Awaited<ReturnType<typeof startFakeSmsc>>;
const opened: SmsProvider[] = [];

beforeAll(async () => {
  smsc = await startFakeSmsc(credentials);
});
afterAll(() => smsc.close());
beforeEach(() => {
  smsc.submits.length = 0;
  smsc.messageIds.length = 0;
  smsc.binds.length = 0;
  smsc.stats.maxOutstanding = 0;
  smsc.setPlan(() => ({}));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((provider) => provider.close()));
});

function open(overrides: Partial<SmppConfig> = {}, addressPolicy?: PublicAddressPolicy) {
  const config: SmppConfig = {
    host: smsc.host,
    port: smsc.port,
    ...credentials,
    bindMode: 'transceiver',
    submitTimeoutMs: 1_000,
    bindTimeoutMs: 2_000,
    enquireLinkMs: 5_000,
    reconnect: { initialMs: 50, maxMs: 200 },
    // The fake listens on loopback: allowed as PROVIDER_ALLOWED_PRIVATE_HOSTS would allow it.
    allowedPrivateHosts: ['127.0.0.1'],
    ...overrides,
  };
  const provider = addressPolicy ? createSmppProvider(config, addressPolicy) : createSmppProvider(config);
  opened.push(provider);
  return provider;
}

const sms = (n: number, overrides: Partial<OutboundSms> = {}): OutboundSms => ({
  recipientKey: `dr-${n}`,
  to: `+2547110000${String(n).padStart(2, '0')}`,
  from: 'ACME',
  text: 'Hello from Acme',
  encoding: 'GSM-7',
  parts: 1,
  ...overrides,
});

async function waitFor(check: () => boolean, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const textOf = (pdu: Pdu) => {
  const value = pdu.short_message as { message: string };
  return value.message;
};

describe('SMPP adapter', () => {
  it('binds as a transceiver and submits a GSM-7 message with explicit data coding; the receipt comes back', async () => {
    smsc.setPlan(() => ({ receipt: 'DELIVRD' }));
    const provider = open();
    const updates: DeliveryUpdate[] = [];
    provider.onDeliveryReport!(async (update) => {
      updates.push(update);
    });
    const answered = smsc.stats.receiptsAnswered;

    const [outcome] = await provider.sendBatch([sms(1, { text: 'Price: 5€ [promo]' })]);

    expect(smsc.binds).toEqual(['bind_transceiver']);
    expect(outcome).toMatchObject({ recipientKey: 'dr-1', outcome: 'accepted' });
    const [submit] = smsc.submits;
    expect(submit).toMatchObject({
      destination_addr: '254711000001',
      dest_addr_ton: 1,
      source_addr: 'ACME',
      source_addr_ton: 5,
      registered_delivery: 1,
      data_coding: 0x00,
    });
    expect(submit!.esm_class! & smpp.ESM_CLASS.UDH_INDICATOR).toBe(0);
    expect(textOf(submit!)).toBe('Price: 5€ [promo]');

    await waitFor(() => updates.length === 1);
    expect(updates[0]).toMatchObject({
      providerMessageId: outcome!.outcome === 'accepted' ? outcome!.providerMessageId : '?',
      status: 'delivered',
      providerStatus: 'DELIVRD',
      error: null,
      at: new Date('2026-03-01T10:01:00Z'),
    });
    await waitFor(() => smsc.stats.receiptsAnswered === answered + 1);
  });

  it('sends a long UCS-2 message in parts with one concatenation reference; every part names the recipient', async () => {
    const text = 'Habari! Привет, мир — こんにちは 👋 '.repeat(5).trim();
    expect(text.length).toBeGreaterThan(134);
    const [outcome] = await open().sendBatch([sms(2, { text, encoding: 'UCS-2', parts: 3 })]);

    expect(smsc.submits).toHaveLength(3);
    // The package hands the SMSC each information element without the header length (05).
    const elements = smsc.submits.map((pdu) => (pdu.short_message as { udh: Buffer[] }).udh);
    const reference = elements[0]![0]![2];
    expect(elements.map((list) => list.map((ie) => [...ie]))).toEqual(
      [1, 2, 3].map((seq) => [[0x00, 0x03, reference, 3, seq]]),
    );
    for (const pdu of smsc.submits) {
      expect(pdu.data_coding).toBe(0x08);
      expect(pdu.esm_class! & smpp.ESM_CLASS.UDH_INDICATOR).toBe(smpp.ESM_CLASS.UDH_INDICATOR);
    }
    const partTexts = smsc.submits.map(textOf);
    expect(partTexts.join('')).toBe(text);
    expect(partTexts[0]!.length).toBeLessThanOrEqual(67);
    expect(outcome).toEqual({
      recipientKey: 'dr-2',
      outcome: 'accepted',
      providerMessageId: smsc.messageIds[0],
      reportIds: smsc.messageIds.map((id, index) => ({ id, part: index + 1 })),
      reportParts: 3,
    });
  });

  it('sets the source TON/NPI by the sender, unless the company set its own', async () => {
    await open().sendBatch([sms(5, { from: '22384' }), sms(6, { from: '+254711000006' }), sms(7)]);
    const bySender = (provider: string) => smsc.submits.find((pdu) => pdu.source_addr === provider);
    expect(bySender('22384')).toMatchObject({ source_addr_ton: 3, source_addr_npi: 0 });
    expect(bySender('254711000006')).toMatchObject({ source_addr_ton: 1, source_addr_npi: 1 });
    expect(bySender('ACME')).toMatchObject({ source_addr_ton: 5, source_addr_npi: 0 });

    smsc.submits.length = 0;
    await open({ sourceTon: 0, sourceNpi: 9 }).sendBatch([sms(8, { from: '22384' })]);
    expect(smsc.submits[0]).toMatchObject({ source_addr: '22384', source_addr_ton: 0, source_addr_npi: 9 });
  });

  it('refuses a stored alphanumeric sender over 11 characters instead of sending it cut', async () => {
    const [outcome] = await open().sendBatch([sms(4, { from: 'ACMEBANKING1' })]);
    expect(outcome).toEqual({
      recipientKey: 'dr-4',
      outcome: 'rejected',
      reason: PROVIDER_MESSAGES.senderTooLong,
    });
    expect(smsc.submits).toHaveLength(0);
  });

  it('splits a long GSM-7 text at 153 septets, counting extension characters twice', async () => {
    const text = `${'a'.repeat(152)}€${'b'.repeat(40)}`;
    await open().sendBatch([sms(3, { text, parts: 2 })]);
    expect(smsc.submits.map((pdu) => pdu.data_coding)).toEqual([0x00, 0x00]);
    expect(smsc.submits.map(textOf)).toEqual(['a'.repeat(152), `€${'b'.repeat(40)}`]);
  });

  it('rejects what the SMSC refuses and retries what it throttles, holding the rest of the batch back', async () => {
    smsc.setPlan((pdu) =>
      pdu.destination_addr === '254711000001'
        ? { status: smpp.ESME_RINVDSTADR }
        : pdu.destination_addr === '254711000002'
          ? { status: smpp.ESME_RTHROTTLED }
          : {},
    );
    const outcomes = await open({ window: 1 }).sendBatch([sms(1), sms(2), sms(3), sms(4)]);

    expect(outcomes[0]).toEqual({
      recipientKey: 'dr-1',
      outcome: 'rejected',
      reason: 'ESME_RINVDSTADR (0x0B)',
      providerStatus: 'ESME_RINVDSTADR (0x0B)',
    });
    expect(outcomes[1]).toEqual({
      recipientKey: 'dr-2',
      outcome: 'retry',
      reason: 'the SMSC refused submit_sm: ESME_RTHROTTLED (0x58)',
      scope: 'request',
    });
    expect(outcomes.slice(2)).toEqual([
      {
        recipientKey: 'dr-3',
        outcome: 'retry',
        reason: 'held back: the SMSC refused submit_sm: ESME_RTHROTTLED (0x58)',
        scope: 'request',
      },
      {
        recipientKey: 'dr-4',
        outcome: 'retry',
        reason: 'held back: the SMSC refused submit_sm: ESME_RTHROTTLED (0x58)',
        scope: 'request',
      },
    ]);
    expect(smsc.submits).toHaveLength(2);
  });

  it('treats a full message queue and a system error as transient', async () => {
    smsc.setPlan((pdu) =>
      pdu.destination_addr === '254711000001'
        ? { status: smpp.ESME_RMSGQFUL }
        : { status: smpp.ESME_RSYSERR },
    );
    const outcomes = await open({ window: 1 }).sendBatch([sms(1)]);
    expect(outcomes[0]).toMatchObject({
      outcome: 'retry',
      reason: 'the SMSC refused submit_sm: ESME_RMSGQFUL (0x14)',
    });
    const [second] = await open().sendBatch([sms(2)]);
    expect(second).toMatchObject({
      outcome: 'retry',
      reason: 'the SMSC refused submit_sm: ESME_RSYSERR (0x08)',
    });
  });

  it('leaves a recipient whose response does not come in time unknown, never offered again', async () => {
    smsc.setPlan((pdu) => (pdu.destination_addr === '254711000001' ? { silent: true } : {}));
    // The silent part never answers: without its time-out this would hang.
    const outcomes = await open({ submitTimeoutMs: 300 }).sendBatch([sms(1), sms(2)]);
    expect(outcomes[0]).toEqual({
      recipientKey: 'dr-1',
      outcome: 'unknown',
      reason: 'The SMSC did not answer submit_sm within 300 ms',
      reportIds: [],
    });
    expect(outcomes[1]).toMatchObject({ outcome: 'accepted' });
  });

  it('holds the rest of the batch back once a submit went unanswered, without submitting it', async () => {
    smsc.setPlan((pdu) => (pdu.destination_addr === '254711000001' ? { silent: true } : {}));
    const outcomes = await open({ submitTimeoutMs: 300, window: 1 }).sendBatch([sms(1), sms(2)]);
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['unknown', 'retry']);
    expect(outcomes[1]).toMatchObject({
      reason: 'held back: The SMSC did not answer submit_sm within 300 ms',
      scope: 'request',
    });
    expect(smsc.submits.map((pdu) => pdu.destination_addr)).toEqual(['254711000001']);
  });

  it('pipelines a batch through the window of outstanding submit_sm', async () => {
    smsc.setPlan(() => ({ delayMs: 60 }));
    const batch = Array.from({ length: 30 }, (_, i) => sms(i + 1));
    const outcomes = await open({ window: 5 }).sendBatch(batch);
    expect(outcomes.every((outcome) => outcome.outcome === 'accepted')).toBe(true);
    // Never more than the window; more than one at a time (the fake shares this busy process, so
    // the exact peak it observes can lag by one).
    expect(smsc.stats.maxOutstanding).toBeLessThanOrEqual(5);
    expect(smsc.stats.maxOutstanding).toBeGreaterThanOrEqual(3);
  });

  it('holds every recipient back when the bind is refused, naming the reason', async () => {
    const outcomes = await open({ password: 'wrong', bindTimeoutMs: 500 }).sendBatch([sms(1)]);
    expect(outcomes).toEqual([
      {
        recipientKey: 'dr-1',
        outcome: 'retry',
        reason: 'not bound to the SMSC: the SMSC refused the bind: ESME_RINVPASWD (0x0E)',
        scope: 'account',
      },
    ]);
    expect(smsc.submits).toHaveLength(0);
  });

  it('names only the code of a connection error, not the address it tried', async () => {
    const outcomes = await open({ port: 1, bindTimeoutMs: 300 }).sendBatch([sms(1)]);
    expect(outcomes).toEqual([
      {
        recipientKey: 'dr-1',
        outcome: 'retry',
        reason: 'not bound to the SMSC: connection error: ECONNREFUSED',
        scope: 'account',
      },
    ]);
  });

  it('reconnects after the SMSC drops the connection; submits in flight are offered again', async () => {
    smsc.setPlan((pdu) => (pdu.destination_addr === '254711000001' ? { silent: true } : {}));
    const provider = open({ submitTimeoutMs: 5_000 });
    const pending = provider.sendBatch([sms(1)]);
    await waitFor(() => smsc.submits.length === 1);
    smsc.dropAll();

    const [lost] = await pending;
    expect(lost).toMatchObject({ outcome: 'retry' });
    expect(lost!.outcome === 'retry' && lost!.reason).toMatch(/^lost the SMSC connection/);

    await waitFor(() => smsc.binds.length === 2);
    const [after] = await provider.sendBatch([sms(2)]);
    expect(after).toMatchObject({ outcome: 'accepted' });
  });

  it('binds a transmitter and a receiver in that mode; receipts arrive on the receiver', async () => {
    smsc.setPlan(() => ({ receipt: 'UNDELIV' }));
    const provider = open({ bindMode: 'transmitter_receiver' });
    const updates: DeliveryUpdate[] = [];
    provider.onDeliveryReport!(async (update) => {
      updates.push(update);
    });
    const [outcome] = await provider.sendBatch([sms(1)]);
    expect(smsc.binds.sort()).toEqual(['bind_receiver', 'bind_transmitter']);
    await waitFor(() => updates.length === 1);
    expect(updates[0]).toMatchObject({
      providerMessageId: outcome!.outcome === 'accepted' ? outcome!.providerMessageId : '?',
      status: 'failed',
      providerStatus: 'UNDELIV',
      error: 'UNDELIV (err 001)',
    });
  });

  it('answers every deliver_sm, receipts or not, and sends enquire_link on its own', async () => {
    const provider = open({ enquireLinkMs: 100 });
    const updates: DeliveryUpdate[] = [];
    provider.onDeliveryReport!(async (update) => {
      updates.push(update);
    });
    await provider.sendBatch([sms(1)]);
    const before = smsc.stats.enquireLinks;

    const mo = await smsc.sendDeliverSm({
      source_addr: '254711000001',
      destination_addr: '22384',
      short_message: 'STOP',
    });
    expect(mo.command).toBe('deliver_sm_resp');
    const receipt = await smsc.sendDeliverSm({
      esm_class: smpp.ESM_CLASS.MC_DELIVERY_RECEIPT,
      short_message: 'garbage without fields',
      receipted_message_id: 'ABC123',
      message_state: smpp.MESSAGE_STATE.DELIVERED,
    });
    expect(receipt.command).toBe('deliver_sm_resp');
    await waitFor(() => updates.length === 1);
    expect(updates[0]).toMatchObject({
      providerMessageId: 'ABC123',
      status: 'delivered',
      providerStatus: 'DELIVRD',
    });
    await waitFor(() => smsc.stats.enquireLinks > before);
  });
});

describe('SMPP host at connection time', () => {
  const refused =
    'not bound to the SMSC: the SMSC host is refused: it points at a private, loopback or link-local address';

  it.each([
    ['loopback, not allowed', () => smsc.host],
    ['loopback as one number', () => '2130706433'],
    ['IPv6 loopback', () => '::1'],
    ['localhost', () => 'localhost'],
    ['the metadata address', () => '169.254.169.254'],
  ])('refuses %s without connecting', async (_name, host) => {
    const outcomes = await open({ host: host(), allowedPrivateHosts: [], bindTimeoutMs: 300 }).sendBatch([
      sms(1),
    ]);
    expect(outcomes).toEqual([{ recipientKey: 'dr-1', outcome: 'retry', reason: refused, scope: 'account' }]);
    expect(smsc.binds).toHaveLength(0);
  });

  // DNS is outside the system: a resolver stands in for a name that points inside by now.
  const resolvesToLoopback: Resolve = async (host) => {
    if (host !== 'smsc.rebound.test') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
  };

  it('refuses a name that resolves to a private address as it connects, and binds once the operator allows it', async () => {
    const outcomes = await open(
      { host: 'smsc.rebound.test', bindTimeoutMs: 300 },
      createPublicAddressPolicy([], resolvesToLoopback),
    ).sendBatch([sms(1)]);
    expect(outcomes).toEqual([{ recipientKey: 'dr-1', outcome: 'retry', reason: refused, scope: 'account' }]);
    expect(smsc.binds).toHaveLength(0);

    const onlyLoopback: Resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const allowed = open(
      { host: 'smsc.rebound.test' },
      createPublicAddressPolicy(['127.0.0.1'], onlyLoopback),
    );
    expect(await allowed.sendBatch([sms(2)])).toEqual([
      expect.objectContaining({ recipientKey: 'dr-2', outcome: 'accepted' }),
    ]);
    expect(smsc.binds).toEqual(['bind_transceiver']);
  });
});

describe('SMPP receipt parsing', () => {
  const now = new Date('2026-03-02T00:00:00Z');
  const receipt = (text: string, extra: Partial<Pdu> = {}) =>
    ({ esm_class: 4, short_message: { message: text }, ...extra }) as Pdu;

  it('reads 10- and 12-digit dates, any case, and Text: or text:', () => {
    expect(
      parseSmppReceipt(
        receipt(
          'ID:0A1B2C sub:001 dlvrd:001 Submit Date:260301100000 Done Date:260301100130 Stat:delivrd Err:000 Text:hi',
        ),
        now,
      ),
    ).toEqual({
      providerMessageId: '0A1B2C',
      status: 'delivered',
      providerStatus: 'DELIVRD',
      error: null,
      at: new Date('2026-03-01T10:01:30Z'),
      phone: null,
    });
    // The receipt's source address is the handset's: the recipient's number.
    expect(parseSmppReceipt(receipt('id:7 stat:DELIVRD', { source_addr: '254711000001' }), now)?.phone).toBe(
      '+254711000001',
    );
    expect(
      parseSmppReceipt(receipt('id:77 done date:2603011001 stat:EXPIRED err:0 text:'), now),
    ).toMatchObject({
      status: 'expired',
      error: 'EXPIRED',
      at: new Date('2026-03-01T10:01:00Z'),
    });
  });

  it.each([
    ['REJECTD', 'rejected'],
    ['UNDELIV', 'failed'],
    ['DELETED', 'failed'],
    ['UNKNOWN', 'failed'],
    ['ACCEPTD', 'sent'],
    ['ENROUTE', 'sent'],
    ['BUFFRED', 'sent'],
    ['FAILED', 'failed'],
  ])('maps stat %s onto %s', (stat, status) => {
    expect(parseSmppReceipt(receipt(`id:9 stat:${stat} err:042`), now)).toMatchObject({ status });
  });

  it('prefers the receipted_message_id TLV, falls back to the arrival time, and refuses what it cannot read', () => {
    expect(
      parseSmppReceipt(receipt('id:text-id stat:DELIVRD', { receipted_message_id: 'tlv-id\u0000' }), now),
    ).toMatchObject({ providerMessageId: 'tlv-id', at: now });
    expect(parseSmppReceipt(receipt('id:1 done date:9913451234 stat:DELIVRD'), now)!.at).toEqual(now);
    expect(parseSmppReceipt(receipt('stat:DELIVRD'), now)).toBeNull();
    expect(parseSmppReceipt(receipt('id:1 stat:TELEPORTED'), now)).toBeNull();
    expect(parseSmppReceipt({ esm_class: 4 } as Pdu, now)).toBeNull();
  });
});
