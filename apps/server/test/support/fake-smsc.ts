import type { AddressInfo } from 'node:net';
import type { Pdu, Session } from 'smpp';
import smpp from 'smpp';

/** How the fake answers one submit_sm. */
export type SubmitPlan = {
  /** command_status of the submit_sm_resp (0 accepts). */
  status?: number;
  /** Never answer (the client's time-out is what is tested); with `receipt`, taken all the same. */
  silent?: boolean;
  delayMs?: number;
  /** Send a delivery receipt with this stat (DELIVRD, UNDELIV, ...) after accepting. */
  receipt?: string;
};

type BoundSession = { session: Session; bind: string };

/**
 * How the fake writes its message ids (Kannel's msg-id-type): `text` (SMSC000001), or a number
 * in the same base in submit_sm_resp and receipts (`decimal`, `hex`), or hex in the one and
 * decimal in the other (`hex_decimal`: hex in submit_sm_resp; `decimal_hex`: the reverse).
 */
export type FakeIdForm = 'text' | 'decimal' | 'hex' | 'hex_decimal' | 'decimal_hex';

/** The n-th id in each of its forms: as submit_sm_resp gives it and as its receipt names it. */
function idsOf(n: number, form: FakeIdForm) {
  if (form === 'text') {
    const id = `SMSC${String(n).padStart(6, '0')}`;
    return { submitted: id, receipted: id };
  }
  // Past 0x9FFFFF, so the hex form has a letter and reads as no decimal number.
  const value = 0xa00000 + n;
  const hex = value.toString(16).toUpperCase();
  const decimal = String(value);
  const submittedHex = form === 'hex' || form === 'hex_decimal';
  const receiptedHex = form === 'hex' || form === 'decimal_hex';
  return { submitted: submittedHex ? hex : decimal, receipted: receiptedHex ? hex : decimal };
}

/**
 * A local SMSC built from the same package: answers binds (checking system_id and password),
 * enquire_link, unbind and submit_sm (a message_id per part), and sends deliver_sm receipts to a
 * transceiver or receiver session. Tests steer each submit with `plan` and can drop every
 * connection at once.
 */
export async function startFakeSmsc(
  credentials: { systemId: string; password: string },
  { idForm = 'text' }: { idForm?: FakeIdForm } = {},
) {
  const submits: Pdu[] = [];
  /** The message_id the fake gives (or would give) each submit, in the same order. */
  const messageIds: string[] = [];
  const binds: string[] = [];
  /** The fake's ledger: every submit it accepted and answered, with its message_id. */
  const accepted: { messageId: string; destination: string }[] = [];
  const bound: BoundSession[] = [];
  const stats = { enquireLinks: 0, receiptsAnswered: 0, outstanding: 0, maxOutstanding: 0 };
  /** The command_status of every deliver_sm_resp to a receipt, in the order they came. */
  const receiptAnswers: { messageId: string; status: number }[] = [];
  let plan: (pdu: Pdu) => SubmitPlan = () => ({});
  let nextId = 1;
  /** The session each submit_sm came on: its receipts go back there. */
  const sessionOf = new WeakMap<Pdu, Session>();
  /** As a real SMSC: a receipt answered with an error is sent again after this long. */
  let redeliverAfterMs: number | null = null;

  const server = smpp.createServer({}, (session) => {
    session.on('error', () => {});
    session.on('close', () => {
      const index = bound.findIndex((entry) => entry.session === session);
      if (index >= 0) bound.splice(index, 1);
    });
    for (const bind of ['bind_transceiver', 'bind_transmitter', 'bind_receiver']) {
      session.on(bind, (pdu: Pdu) => {
        binds.push(bind);
        if (pdu.system_id !== credentials.systemId || pdu.password !== credentials.password) {
          session.send(pdu.response({ command_status: smpp.ESME_RINVPASWD }));
          return;
        }
        bound.push({ session, bind });
        session.send(pdu.response({ system_id: 'FAKESMSC' }));
      });
    }
    session.on('enquire_link', (pdu: Pdu) => {
      stats.enquireLinks += 1;
      session.send(pdu.response());
    });
    session.on('unbind', (pdu: Pdu) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('submit_sm', (pdu: Pdu) => {
      const { submitted: messageId, receipted } = idsOf(nextId++, idForm);
      submits.push(pdu);
      sessionOf.set(pdu, session);
      messageIds.push(messageId);
      const decision = plan(pdu);
      if (decision.silent) {
        if (decision.receipt && pdu.registered_delivery)
          setTimeout(() => sendReceipt(receipted, pdu, decision.receipt!, session), decision.delayMs ?? 0);
        return;
      }
      stats.outstanding += 1;
      stats.maxOutstanding = Math.max(stats.maxOutstanding, stats.outstanding);
      const answer = () => {
        stats.outstanding -= 1;
        if (decision.status) {
          session.send(pdu.response({ command_status: decision.status }));
          return;
        }
        // A response the dropped connection could not carry is no acceptance the client heard of.
        if (session.send(pdu.response({ message_id: messageId })))
          accepted.push({ messageId, destination: String(pdu.destination_addr) });
        if (decision.receipt && pdu.registered_delivery)
          sendReceipt(receipted, pdu, decision.receipt, session);
      };
      if (decision.delayMs) setTimeout(answer, decision.delayMs);
      else answer();
    });
  });

  /** To the transceiver session that submitted it, else the first session that can receive. */
  function sendReceipt(messageId: string, submit: Pdu, stat: string, from?: Session) {
    const receiver =
      bound.find((entry) => entry.session === from && entry.bind === 'bind_transceiver') ??
      bound.find((entry) => entry.bind !== 'bind_transmitter');
    if (!receiver) return;
    const delivered = stat === 'DELIVRD' ? '001' : '000';
    receiver.session.deliver_sm(
      {
        source_addr: submit.destination_addr,
        destination_addr: submit.source_addr,
        esm_class: smpp.ESM_CLASS.MC_DELIVERY_RECEIPT,
        data_coding: 0,
        short_message: `id:${messageId} sub:001 dlvrd:${delivered} submit date:2603011000 done date:2603011001 stat:${stat} err:${stat === 'DELIVRD' ? '000' : '001'} text:`,
      },
      (response: Pdu) => {
        stats.receiptsAnswered += 1;
        receiptAnswers.push({ messageId, status: response.command_status });
        if (response.command_status !== 0 && redeliverAfterMs !== null)
          setTimeout(() => sendReceipt(messageId, submit, stat, from), redeliverAfterMs);
      },
    );
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    submits,
    messageIds,
    binds,
    accepted,
    stats,
    receiptAnswers,
    boundSessions: () => bound.map((entry) => entry.bind),
    setPlan(next: (pdu: Pdu) => SubmitPlan) {
      plan = next;
    },
    /** Receipts refused with an error status are sent again after `ms` (null: never). */
    redeliverRefusedReceipts(ms: number | null) {
      redeliverAfterMs = ms;
    },
    /**
     * Sends a deliver_sm of our choosing to the transceiver session `submit` came on, else to the
     * first session that can receive.
     */
    sendDeliverSm(options: Record<string, unknown>, submit?: Pdu) {
      return new Promise<Pdu>((resolve) => {
        const from = submit && sessionOf.get(submit);
        const receiver =
          bound.find((entry) => entry.session === from && entry.bind === 'bind_transceiver') ??
          bound.find((entry) => entry.bind !== 'bind_transmitter');
        receiver!.session.deliver_sm(options, resolve);
      });
    },
    /** Cuts every connection, as an SMSC restart would. */
    dropAll() {
      for (const session of [...server.sessions]) session.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of [...server.sessions]) session.destroy();
        server.close(() => resolve());
      }),
  };
}
