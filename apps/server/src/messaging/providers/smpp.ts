import {
  PROVIDER_DEFAULTS,
  SMPP_SOURCE_ADDRESS_DEFAULTS,
  senderRefusal,
  type TSmppBindMode,
  type TSmppMessageIdType,
} from '@sms/contracts/admin/company-provider';
import type { Pdu, Session } from 'smpp';
import smpp from 'smpp';
import { createPublicAddressPolicy, type PublicAddressPolicy } from '../../lib/public-address.ts';
import {
  type DeliveryUpdate,
  type InboundSms,
  type OutboundSms,
  type RetryScope,
  retryEach,
  retryOf,
  type SmsProvider,
  type SubmitOutcome,
} from './provider.ts';
import { describeStatus, openSmppLink } from './smpp-link.ts';
import { receiptId, recipientReportIds } from './smpp-message-ids.ts';
import { type SmppPart, splitIntoParts } from './smpp-parts.ts';
import { isDeliveryReceipt, parseSmppInbound, parseSmppReceipt } from './smpp-receipt.ts';

export type SmppConfig = {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  /** One transceiver session, or a transmitter for submits plus a receiver for receipts. */
  bindMode: TSmppBindMode;
  /** How submit_sm_resp and receipts write a message id; default `auto` (either form). */
  messageIdType?: TSmppMessageIdType;
  /** submit_sm PDUs outstanding at once (each part counts), so a batch is pipelined. */
  window?: number;
  batchSize?: number;
  /** The company's source TON / NPI; null or absent: by the sender's kind. */
  sourceTon?: number | null;
  sourceNpi?: number | null;
  submitTimeoutMs?: number;
  /** How long a bind may take, and how long a batch waits for a bound session. */
  bindTimeoutMs?: number;
  enquireLinkMs?: number;
  reconnect?: { initialMs?: number; maxMs?: number };
  /** PROVIDER_ALLOWED_PRIVATE_HOSTS: any other private host is refused. */
  allowedPrivateHosts?: readonly string[];
};

/** Answers that mean "not now" rather than "never": the SMSC's flow control and its own faults. */
const TRANSIENT_STATUSES = new Set(
  [
    'ESME_RTHROTTLED',
    'ESME_RMSGQFUL',
    'ESME_RSYSERR',
    'ESME_RINVBNDSTS',
    'ESME_RX_T_APPN',
    'ESME_RSUBMITFAIL',
    'ESME_RUNKNOWNERR',
  ].map((name) => smpp.errors[name]),
);
/** Flow control: the rest of the batch is held back instead of being refused one by one. */
const FLOW_CONTROL = new Set([smpp.ESME_RTHROTTLED, smpp.ESME_RMSGQFUL]);

/** One sendBatch call: once the SMSC asks us to slow down, its remaining recipients wait. */
type Batch = { held: string | null };

type PartResult =
  | { kind: 'accepted'; messageId: string }
  | { kind: 'rejected'; reason: string }
  /** Written, never answered: the SMSC may have taken it. */
  | { kind: 'unknown'; reason: string }
  | { kind: 'retry'; reason: string; scope: RetryScope };

/**
 * SMPP 3.4 over npm `smpp`. Binds at once (receipts may arrive at any time) and stays bound. A
 * batch is pipelined through a window of outstanding submit_sm; every part's message_id is
 * recorded, as a recipient is delivered once every part is (outcomeOf says how parts decide).
 */
export function createSmppProvider(
  config: SmppConfig,
  addressPolicy: PublicAddressPolicy = createPublicAddressPolicy(config.allowedPrivateHosts ?? []),
): SmsProvider {
  const windowSize = Math.max(1, config.window ?? PROVIDER_DEFAULTS.smpp.window);
  const idType = config.messageIdType ?? 'auto';
  const submitTimeoutMs = config.submitTimeoutMs ?? 10_000;
  const bindTimeoutMs = config.bindTimeoutMs ?? 10_000;
  const window = createWindow(windowSize);
  const listeners = new Set<(update: DeliveryUpdate) => Promise<void>>();
  const inboundListeners = new Set<(message: InboundSms) => Promise<void>>();
  const inFlight = new Set<(result: PartResult) => void>();
  let reference = Math.floor(Math.random() * 256);

  /** Resolves once every listener stored it; a rejection makes the SMSC send it again. */
  const onDeliver = async (pdu: Pdu) => {
    if (!isDeliveryReceipt(pdu)) {
      const message = parseSmppInbound(pdu);
      if (message) await Promise.all([...inboundListeners].map((listener) => listener(message)));
      return;
    }
    const parsed = parseSmppReceipt(pdu);
    // Acknowledged and dropped: sent again, an unreadable receipt would stay unreadable.
    if (!parsed) return;
    const update = { ...parsed, providerMessageId: receiptId(parsed.providerMessageId, idType) };
    await Promise.all([...listeners].map((listener) => listener(update)));
  };
  const onDown = (reason: string) => {
    for (const finish of [...inFlight])
      finish({ kind: 'retry', reason: `lost the SMSC connection: ${reason}`, scope: 'request' });
  };
  const linkOptions = {
    host: config.host,
    port: config.port,
    systemId: config.systemId,
    password: config.password,
    systemType: config.systemType,
    enquireLinkMs: config.enquireLinkMs ?? 30_000,
    bindTimeoutMs,
    reconnect: { initialMs: config.reconnect?.initialMs ?? 1_000, maxMs: config.reconnect?.maxMs ?? 60_000 },
    onDown,
    addressPolicy,
  };
  const transceiver = config.bindMode === 'transceiver';
  const transmit = transceiver
    ? openSmppLink({ ...linkOptions, bind: 'bind_transceiver', onDeliver })
    : openSmppLink({ ...linkOptions, bind: 'bind_transmitter' });
  const links = transceiver
    ? [transmit]
    : [transmit, openSmppLink({ ...linkOptions, bind: 'bind_receiver', onDeliver, onDown: undefined })];

  function submitPart(session: Session, sms: OutboundSms, part: SmppPart, batch: Batch): Promise<PartResult> {
    return new Promise((resolve) => {
      const finish = (result: PartResult) => {
        if (!inFlight.delete(finish)) return;
        clearTimeout(timer);
        // Before the slot is freed, so the next recipient already sees the batch held back.
        if ((result.kind === 'retry' && result.scope === 'request') || result.kind === 'unknown')
          batch.held ??= `held back: ${result.reason}`;
        window.release();
        resolve(result);
      };
      inFlight.add(finish);
      const timer = setTimeout(
        () =>
          finish({
            kind: 'unknown',
            reason: `The SMSC did not answer submit_sm within ${submitTimeoutMs} ms`,
          }),
        submitTimeoutMs,
      );
      const source = addressOf(sms.from, config);
      const sent = session.submit_sm(
        {
          source_addr_ton: source.ton,
          source_addr_npi: source.npi,
          source_addr: source.address,
          dest_addr_ton: 1,
          dest_addr_npi: 1,
          destination_addr: sms.to.replace(/^\+/, ''),
          registered_delivery: 1,
          data_coding: part.dataCoding,
          short_message: part.udh ? { udh: part.udh, message: part.message } : part.message,
        },
        (response: Pdu) => finish(readSubmitResponse(response)),
      );
      if (!sent) finish({ kind: 'retry', reason: 'the SMSC connection is not writable', scope: 'request' });
    });
  }

  async function sendOne(session: Session, sms: OutboundSms, batch: Batch): Promise<SubmitOutcome> {
    // A sender saved before the rule (or written directly): refused, never sent cut to 11 characters.
    const senderProblem = senderRefusal(sms.from);
    if (senderProblem) return { recipientKey: sms.recipientKey, outcome: 'rejected', reason: senderProblem };
    if (batch.held) return retryOf(sms, batch.held, 'request');
    reference = (reference + 1) & 0xff;
    const parts = splitIntoParts(sms.text, sms.encoding, reference);
    const pending: Promise<PartResult>[] = [];
    for (const part of parts) {
      await window.acquire();
      if (batch.held && pending.length === 0) {
        window.release();
        return retryOf(sms, batch.held, 'request');
      }
      pending.push(submitPart(session, sms, part, batch));
    }
    return outcomeOf(sms.recipientKey, await Promise.all(pending), idType);
  }

  return {
    kind: 'smpp',
    maxBatchSize: Math.max(1, config.batchSize ?? windowSize * 10),
    async sendBatch(messages) {
      if (messages.length === 0) return [];
      const session = await transmit.whenBound(bindTimeoutMs);
      if (!session)
        return retryEach(
          messages,
          `not bound to the SMSC: ${transmit.lastError() ?? 'still connecting'}`,
          'account',
        );
      const batch: Batch = { held: null };
      return Promise.all(messages.map((sms) => sendOne(session, sms, batch)));
    },
    onDeliveryReport(listener) {
      listeners.add(listener);
    },
    onInboundMessage(listener) {
      inboundListeners.add(listener);
    },
    async close() {
      await Promise.all(links.map((link) => link.close()));
    },
  };
}

function readSubmitResponse(response: Pdu): PartResult {
  const status = response.command_status;
  if (status === 0) return { kind: 'accepted', messageId: (response.message_id ?? '').trim() };
  const reason = `the SMSC refused submit_sm: ${describeStatus(status)}`;
  if (TRANSIENT_STATUSES.has(status))
    return { kind: 'retry', reason, scope: FLOW_CONTROL.has(status) ? 'request' : 'recipient' };
  return { kind: 'rejected', reason: describeStatus(status) };
}

/**
 * One recipient's fate from its parts': any refusal rejects; any part never answered makes it
 * unknown (never offered again: that part may have been taken); any part surely not taken retries;
 * else accepted, with every part's id.
 */
function outcomeOf(recipientKey: string, results: PartResult[], idType: TSmppMessageIdType): SubmitOutcome {
  const rejected = results.find((result) => result.kind === 'rejected');
  if (rejected)
    return { recipientKey, outcome: 'rejected', reason: rejected.reason, providerStatus: rejected.reason };
  const answered = results.flatMap((result) =>
    result.kind === 'accepted' && result.messageId ? [result.messageId] : [],
  );
  const unknown = results.find((result) => result.kind === 'unknown');
  if (unknown)
    return {
      recipientKey,
      outcome: 'unknown',
      reason: unknown.reason,
      reportIds: recipientReportIds(answered, idType).reportIds,
    };
  const retry = results.find((result) => result.kind === 'retry');
  if (retry?.kind === 'retry')
    return { recipientKey, outcome: 'retry', reason: retry.reason, scope: retry.scope };
  // Accepted without an id: never offered again, and no receipt can match it.
  if (answered.length === 0)
    return { recipientKey, outcome: 'accepted', providerMessageId: `unknown:${recipientKey}` };
  const { reportIds, reportParts } = recipientReportIds(answered, idType);
  // A part accepted without an id sends a receipt nobody can match: the others decide.
  return { recipientKey, outcome: 'accepted', providerMessageId: answered[0]!, reportIds, reportParts };
}

/**
 * The source address and its TON/NPI: the company's own where set, else by the sender's kind
 * (an international number, a short code of up to 8 digits, or an alphanumeric sender id).
 */
function addressOf(from: string, own: Pick<SmppConfig, 'sourceTon' | 'sourceNpi'>) {
  const address = from.replace(/^\+/, '');
  const kind = /^\d+$/.test(address)
    ? from.startsWith('+') || address.length > 8
      ? SMPP_SOURCE_ADDRESS_DEFAULTS.international
      : SMPP_SOURCE_ADDRESS_DEFAULTS.shortCode
    : SMPP_SOURCE_ADDRESS_DEFAULTS.alphanumeric;
  return { ton: own.sourceTon ?? kind.ton, npi: own.sourceNpi ?? kind.npi, address };
}

/** A counting semaphore, first come first served. */
function createWindow(size: number) {
  let free = size;
  const queue: Array<() => void> = [];
  return {
    acquire(): Promise<void> {
      if (free > 0) {
        free -= 1;
        return Promise.resolve();
      }
      return new Promise((resolve) => queue.push(resolve));
    },
    release() {
      const next = queue.shift();
      if (next) next();
      else free += 1;
    },
  };
}
