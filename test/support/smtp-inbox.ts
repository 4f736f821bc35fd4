import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message as the SMTP server received it: its envelope and the parsed mail. */
export interface ReceivedMail {
  to: string[];
  mail: ParsedMail;
}

/**
 * Test support: a real SMTP server (smtp-server) on a free port of 127.0.0.1 that keeps
 * what it receives, in order. Recipients in `refuse` are answered with `code` (550: no
 * such mailbox; 451: try later). No TLS, no auth: a local server.
 */
export class SmtpInbox {
  readonly received: ReceivedMail[] = [];
  private waiting: (() => void)[] = [];
  private readonly server: SMTPServer;
  /** Recipients refused, and the SMTP code they are refused with. */
  readonly refuse = new Map<string, number>();

  constructor() {
    this.server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onRcptTo: (address, _session, callback) => {
        const code = this.refuse.get(address.address);
        if (code === undefined) return callback();
        const error = new Error(`Refused ${address.address}`) as Error & { responseCode: number };
        error.responseCode = code;
        callback(error);
      },
      onData: (stream, session, callback) => {
        simpleParser(stream).then(
          (mail) => {
            this.received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail });
            for (const wake of this.waiting.splice(0)) wake();
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
  }

  /** Starts listening; the `smtp://` URL nodemailer reaches it at. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.server.address() as AddressInfo;
    return `smtp://127.0.0.1:${port}`;
  }

  /** The first message received that `matches`, once it has arrived. */
  async find(matches: (received: ReceivedMail) => boolean): Promise<ReceivedMail> {
    for (;;) {
      const found = this.received.find(matches);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
