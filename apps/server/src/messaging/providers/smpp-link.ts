import type { Pdu, Session } from 'smpp';
import smpp from 'smpp';
import { NonPublicAddressError, type PublicAddressPolicy } from '../../lib/public-address.ts';

export type BindCommand = 'bind_transceiver' | 'bind_transmitter' | 'bind_receiver';

export type SmppLinkOptions = {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  bind: BindCommand;
  /** A link silent for three periods is dropped and reopened. */
  enquireLinkMs: number;
  bindTimeoutMs: number;
  reconnect: { initialMs: number; maxMs: number };
  /** Answered OK once it resolves, ESME_RX_T_APPN when it rejects (the SMSC sends it again). */
  onDeliver?: (pdu: Pdu) => Promise<void>;
  /** The bound session went away: requests still waiting for an answer will never get one. */
  onDown?: (reason: string) => void;
  addressPolicy: PublicAddressPolicy;
};

export type SmppLink = {
  whenBound(timeoutMs: number): Promise<Session | null>;
  /** Why the link is not bound, for the operator. */
  lastError(): string | null;
  close(): Promise<void>;
};

const ERROR_NAMES = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

/** `ESME_RTHROTTLED (0x58)`, or the bare code for one the package does not name. */
export function describeStatus(status: number) {
  const hex = `0x${status.toString(16).toUpperCase().padStart(2, '0')}`;
  const name = ERROR_NAMES.get(status);
  return name ? `${name} (${hex})` : `command_status ${hex}`;
}

/**
 * One SMPP connection kept bound, reconnecting with exponential backoff after any loss (error,
 * refused bind, silence). An `error` listener is always attached: unheard, it would end the process.
 */
export function openSmppLink(options: SmppLinkOptions): SmppLink {
  let session: Session | null = null;
  let bound = false;
  let closed = false;
  let failures = 0;
  let lastError: string | null = null;
  /** A refused host: waiting for a bind would be waiting for nothing. */
  let refused = false;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let waiters: Array<(session: Session | null) => void> = [];

  function wakeWaiters(value: Session | null) {
    for (const waiter of waiters) waiter(value);
    waiters = [];
  }

  function reconnectLater() {
    const delay = Math.min(options.reconnect.maxMs, options.reconnect.initialMs * 2 ** failures);
    failures += 1;
    // Up to a quarter of jitter, so many companies' links do not reconnect in step.
    reconnectTimer = setTimeout(connect, delay * (1 + Math.random() / 4));
  }

  function connect() {
    reconnectTimer = null;
    if (closed) return;
    // An IP address is connected to without a lookup: checked here; a name by the lookup below.
    const refusal = options.addressPolicy.refusalOf(options.host);
    if (refusal) {
      refused = true;
      lastError = `the SMSC host is refused: ${refusal}`;
      reconnectLater();
      return;
    }
    const current = smpp.connect({
      host: options.host,
      port: options.port,
      auto_enquire_link_period: options.enquireLinkMs,
      lookup: options.addressPolicy.lookup,
    });
    session = current;
    let lastHeard = Date.now();
    let bindTimer: NodeJS.Timeout | null = null;
    const watchdog = setInterval(() => {
      if (Date.now() - lastHeard > options.enquireLinkMs * 3) {
        lastError = 'the SMSC stopped answering enquire_link';
        current.destroy();
      }
    }, options.enquireLinkMs);

    current.on('error', (error: NodeJS.ErrnoException) => {
      refused = error instanceof NonPublicAddressError;
      lastError =
        error instanceof NonPublicAddressError
          ? `the SMSC host is refused: ${error.message}`
          : // The code alone (ECONNREFUSED, ENOTFOUND): the socket's message names addresses and ports.
            `connection error: ${error.code && /^[A-Z_]+$/.test(error.code) ? error.code : 'network error'}`;
      if (refused) wakeWaiters(null);
    });
    current.on('connect', () => {
      refused = false;
      bindTimer = setTimeout(() => {
        lastError = `no bind response within ${options.bindTimeoutMs} ms`;
        current.destroy();
      }, options.bindTimeoutMs);
      current[options.bind](
        {
          system_id: options.systemId,
          password: options.password,
          system_type: options.systemType ?? '',
          interface_version: 0x34,
        },
        (response: Pdu) => {
          if (bindTimer) clearTimeout(bindTimer);
          if (response.command_status !== 0) {
            lastError = `the SMSC refused the bind: ${describeStatus(response.command_status)}`;
            current.destroy();
            return;
          }
          bound = true;
          failures = 0;
          lastError = null;
          wakeWaiters(current);
        },
      );
    });
    current.on('pdu', () => {
      lastHeard = Date.now();
    });
    current.on('enquire_link', (pdu: Pdu) => {
      current.send(pdu.response());
    });
    current.on('deliver_sm', (pdu: Pdu) => {
      // Answered after the handler: an OK the SMSC hears is a receipt we hold (stored), never one
      // lost with a failed write. Answers may go out of order; each names its deliver_sm's sequence.
      void (async () => options.onDeliver?.(pdu))().then(
        () => current.send(pdu.response()),
        () => current.send(pdu.response({ command_status: smpp.ESME_RX_T_APPN })),
      );
    });
    current.on('unbind', (pdu: Pdu) => {
      lastError = 'the SMSC unbound';
      current.send(pdu.response());
      current.close();
    });
    current.on('unknown', (pdu: Pdu) => {
      current.send(pdu.response());
    });
    current.on('close', () => {
      clearInterval(watchdog);
      if (bindTimer) clearTimeout(bindTimer);
      const wasBound = bound;
      bound = false;
      if (session === current) session = null;
      if (wasBound) options.onDown?.(lastError ?? 'the SMSC closed the connection');
      if (closed) return;
      reconnectLater();
    });
  }

  connect();

  return {
    whenBound(timeoutMs) {
      if (bound && session) return Promise.resolve(session);
      if (closed || refused) return Promise.resolve(null);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter !== settle);
          resolve(null);
        }, timeoutMs);
        const settle = (value: Session | null) => {
          clearTimeout(timer);
          resolve(value);
        };
        waiters.push(settle);
      });
    },
    lastError: () => lastError,
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      wakeWaiters(null);
      const current = session;
      if (!current) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => current.destroy(), 1_000);
        current.once('close', () => {
          clearTimeout(force);
          resolve();
        });
        if (!bound || !current.unbind({}, () => current.close())) current.destroy();
      });
    },
  };
}
