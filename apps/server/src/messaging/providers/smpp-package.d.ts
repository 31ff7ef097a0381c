/**
 * The few parts of npm `smpp` (0.5.x, no bundled types) that the adapter and its test SMSC use.
 * Names follow the package (node_modules/smpp/README.md, lib/smpp.js, lib/pdu.js).
 */
declare module 'smpp' {
  type EventEmitter = import('node:events').EventEmitter;

  /** A decoded PDU: header fields plus whichever parameters and TLVs its command carries. */
  export type Pdu = {
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    message_id?: string;
    system_id?: string;
    password?: string;
    source_addr?: string;
    destination_addr?: string;
    esm_class?: number;
    registered_delivery?: number;
    data_coding?: number;
    /** Decoded by the package: `{ udh?: Buffer[]; message: string }`, or raw when undecodable. */
    short_message?: { udh?: Buffer[]; message: string | Buffer } | Buffer | string;
    message_payload?: { udh?: Buffer[]; message: string | Buffer } | Buffer | string;
    receipted_message_id?: string;
    /** Decoded by the package into a Date when absolute (SMPP 3.4 7.1.1); empty when unset. */
    schedule_delivery_time?: Date | string;
    message_state?: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): Pdu;
  };

  export type PduCallback = (pdu: Pdu) => void;

  export interface Session extends EventEmitter {
    send(pdu: Pdu, responseCallback?: PduCallback, sendCallback?: PduCallback): boolean;
    bind_transceiver(options: Record<string, unknown>, callback?: PduCallback): boolean;
    bind_transmitter(options: Record<string, unknown>, callback?: PduCallback): boolean;
    bind_receiver(options: Record<string, unknown>, callback?: PduCallback): boolean;
    submit_sm(options: Record<string, unknown>, callback?: PduCallback): boolean;
    deliver_sm(options: Record<string, unknown>, callback?: PduCallback): boolean;
    enquire_link(options?: Record<string, unknown>, callback?: PduCallback): boolean;
    unbind(options?: Record<string, unknown>, callback?: PduCallback): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;
  }

  export interface Server extends EventEmitter {
    sessions: Session[];
    listen(port: number, host: string, callback?: () => void): Server;
    address(): import('node:net').AddressInfo | string | null;
    close(callback?: (error?: Error) => void): Server;
  }

  export type Encoding = {
    match(text: string): boolean;
    encode(text: string): Buffer;
    decode(bytes: Buffer): string;
  };

  type Smpp = {
    connect(
      // The rest of the options go to net.connect as they are (lookup among them).
      options: {
        url?: string;
        host?: string;
        port?: number;
        auto_enquire_link_period?: number;
        lookup?: import('node:net').LookupFunction;
      },
      listener?: () => void,
    ): Session;
    createServer(options: Record<string, unknown>, listener?: (session: Session) => void): Server;
    encodings: { ASCII: Encoding; LATIN1: Encoding; UCS2: Encoding };
    errors: Record<string, number>;
    ESM_CLASS: Record<
      'MC_DELIVERY_RECEIPT' | 'INTERMEDIATE_DELIVERY' | 'UDH_INDICATOR' | 'DELIVERY_ACKNOWLEDGEMENT',
      number
    >;
    MESSAGE_STATE: Record<string, number>;
    ESME_ROK: number;
    ESME_RTHROTTLED: number;
    ESME_RMSGQFUL: number;
    ESME_RSYSERR: number;
    ESME_RBINDFAIL: number;
    ESME_RINVPASWD: number;
    ESME_RINVDSTADR: number;
    ESME_RX_T_APPN: number;
  };

  const smpp: Smpp;
  export default smpp;
}
