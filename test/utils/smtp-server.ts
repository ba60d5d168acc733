import { type ParsedMail, simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  at: number;
  /** Envelope recipients (RCPT TO). */
  to: string[];
  from: string;
  parsed: ParsedMail;
  /** A header of the message, lower-case name. */
  header(name: string): string | undefined;
}

/**
 * A real SMTP server on 127.0.0.1 (the npm package `smtp-server`), plain text, no auth, recording
 * every message it accepts. `holdMs` delays the answer to a message's DATA (a slow server: the
 * sender is mid-send), so a test can kill a worker while a mail is on the wire.
 */
export class TestSmtpServer {
  readonly mails: ReceivedMail[] = [];
  /** Messages whose DATA arrived, accepted or not (a held one counts as soon as it is read). */
  dataReceived = 0;
  private hold: (n: number) => number = () => 0;

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<TestSmtpServer> {
    const holder: { smtp?: TestSmtpServer } = {};
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const smtp = holder.smtp!;
          const n = ++smtp.dataReceived;
          void simpleParser(Buffer.concat(chunks)).then((parsed) => {
            const accept = () => {
              smtp.mails.push({
                at: Date.now(),
                to: session.envelope.rcptTo.map((r) => r.address),
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                parsed,
                header: (name) => {
                  const value = parsed.headers.get(name.toLowerCase());
                  return value === undefined ? undefined : String(value);
                },
              });
              callback();
            };
            const delay = smtp.hold(n);
            if (delay > 0) {
              setTimeout(accept, delay);
            } else {
              accept();
            }
          });
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    holder.smtp = new TestSmtpServer(server, port);
    return holder.smtp;
  }

  /** Delays accepting the n-th message (1-based) by the returned milliseconds. */
  holdWith(hold: (n: number) => number): void {
    this.hold = hold;
  }

  to(address: string): ReceivedMail[] {
    return this.mails.filter((m) => m.to.includes(address));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
