import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as ipaddr from 'ipaddr.js';

const TYPE_A = 1;
const TYPE_AAAA = 28;
const RCODE_NXDOMAIN = 3;

export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | number;
}

/**
 * Answers of a name for one record type: a list of addresses (empty = the name exists without
 * such records), or null for NXDOMAIN. `nth` counts earlier queries of the same name and type, so
 * a script can answer differently the second time (DNS rebinding).
 */
export type DnsAnswerer = (query: { name: string; type: 'A' | 'AAAA'; nth: number }) => string[] | null;

/**
 * A tiny authoritative DNS server on 127.0.0.1 (UDP) for tests: A and AAAA records with TTL 0
 * from a script, everything else empty. The service reaches it through
 * `sinks.webhook.dns_servers`, exactly as it would reach a real resolver; no external network.
 */
export class TestDnsServer {
  readonly queries: DnsQuery[] = [];
  private answerer: DnsAnswerer = () => null;
  private readonly counts = new Map<string, number>();

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {}

  static async start(answerer?: DnsAnswerer): Promise<TestDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => resolve());
    });
    const server = new TestDnsServer(socket, (socket.address() as AddressInfo).port);
    if (answerer) {
      server.answerer = answerer;
    }
    socket.on('message', (message, peer) => server.onMessage(message, peer));
    return server;
  }

  /** `127.0.0.1:<port>`, for `sinks.webhook.dns_servers`. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  answerWith(answerer: DnsAnswerer): void {
    this.answerer = answerer;
  }

  /** Queries seen for `name` (case-insensitive, without a trailing dot). */
  queriesFor(name: string): DnsQuery[] {
    const wanted = name.toLowerCase().replace(/\.$/, '');
    return this.queries.filter((q) => q.name === wanted);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private onMessage(message: Buffer, peer: RemoteInfo): void {
    const question = readQuestion(message);
    if (!question) {
      return;
    }
    const type = question.type === TYPE_A ? 'A' : question.type === TYPE_AAAA ? 'AAAA' : null;
    this.queries.push({ name: question.name, type: type ?? question.type });
    let answers: string[] | null = [];
    if (type) {
      const key = `${question.name}/${type}`;
      const nth = this.counts.get(key) ?? 0;
      this.counts.set(key, nth + 1);
      answers = this.answerer({ name: question.name, type, nth });
    }
    this.socket.send(buildResponse(message, question, type, answers), peer.port, peer.address);
  }
}

interface Question {
  name: string;
  type: number;
  /** Offset just past the question (type and class included). */
  end: number;
}

function readQuestion(message: Buffer): Question | null {
  if (message.length < 12 || message.readUInt16BE(4) < 1) {
    return null;
  }
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset];
    if (length === 0) {
      offset += 1;
      break;
    }
    if (length > 63 || offset + 1 + length > message.length) {
      return null;
    }
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('latin1'));
    offset += 1 + length;
  }
  if (offset + 4 > message.length) {
    return null;
  }
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(offset), end: offset + 4 };
}

function buildResponse(query: Buffer, question: Question, type: 'A' | 'AAAA' | null, answers: string[] | null) {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  const recursionDesired = query.readUInt16BE(2) & 0x0100;
  // QR, AA, RD as asked, RA; NXDOMAIN when the script says the name does not exist.
  header.writeUInt16BE(0x8000 | 0x0400 | recursionDesired | 0x0080 | (answers === null ? RCODE_NXDOMAIN : 0), 2);
  header.writeUInt16BE(1, 4);
  const records = type && answers ? answers.map((address) => answerRecord(type, address)) : [];
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, query.subarray(12, question.end), ...records]);
}

function answerRecord(type: 'A' | 'AAAA', address: string): Buffer {
  const data = Buffer.from(ipaddr.parse(address).toByteArray());
  const expected = type === 'A' ? 4 : 16;
  if (data.length !== expected) {
    throw new Error(`${address} is not an ${type} address`);
  }
  const record = Buffer.alloc(12);
  record.writeUInt16BE(0xc00c, 0); // name: pointer to the question
  record.writeUInt16BE(type === 'A' ? TYPE_A : TYPE_AAAA, 2);
  record.writeUInt16BE(1, 4); // class IN
  record.writeUInt32BE(0, 6); // TTL 0: every lookup asks again
  record.writeUInt16BE(data.length, 10);
  return Buffer.concat([record, data]);
}
