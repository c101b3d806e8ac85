import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { HttpClient } from './http.js';

const TYPE_TXT = 16;
const CLASS_IN = 1;
const RCODE_NXDOMAIN = 3;
const RCODE_FORMERR = 1;
const RCODE_SERVFAIL = 2;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS */
  address: string;
  /** TXT records by lower-case name without the trailing dot; each value is one record. Other names are NXDOMAIN. */
  txt: Map<string, string[]>;
  /** Every name asked, in order. */
  queries: string[];
  /** While true, every question is answered SERVFAIL, as by a resolver that cannot reach the zone. */
  failing: boolean;
}

/** The question's name and where the question section ends; null when the packet is malformed. */
function readQuestion(packet: Buffer): { name: string; type: number; end: number } | null {
  if (packet.length < 12 || packet.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    if (offset >= packet.length) return null;
    const length = packet[offset]!;
    offset += 1;
    if (length === 0) break;
    // Queries never compress their one name; a pointer here is not something this server answers.
    if (length > 63 || offset + length > packet.length) return null;
    labels.push(packet.subarray(offset, offset + length).toString('latin1'));
    offset += length;
  }
  if (offset + 4 > packet.length) return null;
  return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(offset), end: offset + 4 };
}

/** One TXT resource record pointing back at the question's name, the value split into 255-byte strings. */
function txtRecord(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const strings: Buffer[] = [];
  for (let at = 0; at < bytes.length || strings.length === 0; at += 255) {
    const chunk = bytes.subarray(at, at + 255);
    strings.push(Buffer.concat([Buffer.from([chunk.length]), chunk]));
  }
  const rdata = Buffer.concat(strings);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0); // name: a pointer to the question's, at offset 12
  head.writeUInt16BE(TYPE_TXT, 2);
  head.writeUInt16BE(CLASS_IN, 4);
  head.writeUInt32BE(60, 6);
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

function answer(query: Buffer, server: TestDnsServer): Buffer {
  const question = readQuestion(query);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  const flags = query.length >= 4 ? query.readUInt16BE(2) : 0;
  // QR, the query's opcode and RD, authoritative, recursion available.
  const responseFlags = 0x8000 | (flags & 0x7800) | (flags & 0x0100) | 0x0400 | 0x0080;
  if (!question) {
    header.writeUInt16BE(responseFlags | RCODE_FORMERR, 2);
    return header;
  }
  server.queries.push(question.name);
  if (server.failing) {
    header.writeUInt16BE(responseFlags | RCODE_SERVFAIL, 2);
    header.writeUInt16BE(1, 4);
    return Buffer.concat([header, query.subarray(12, question.end)]);
  }
  const values = server.txt.get(question.name);
  const records = values && question.type === TYPE_TXT ? values.map(txtRecord) : [];
  header.writeUInt16BE(responseFlags | (values ? 0 : RCODE_NXDOMAIN), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, query.subarray(12, question.end), ...records]);
}

/** A DNS server on 127.0.0.1 (UDP, random port) answering TXT questions from `txt`; closed after the test. */
export async function startDnsServer(t: TestContext): Promise<TestDnsServer> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  const server: TestDnsServer = { address: `127.0.0.1:${(socket.address() as AddressInfo).port}`, txt: new Map(), queries: [], failing: false };
  socket.on('message', (query, peer) => socket.send(answer(query, server), peer.port, peer.address));
  return server;
}

/** Claims `domain` for the account and proves it through `dns`, as its owner would; answers the verify response. */
export async function claimVerifiedDomain(http: HttpClient, dns: TestDnsServer, domain: string) {
  const claimed = await http.post('/api/branding', { custom_domain: domain });
  if (claimed.status !== 200) throw new Error(`claiming ${domain}: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  const { name, value } = claimed.body.custom_domain_verification as { name: string; value: string };
  dns.txt.set(name, [...(dns.txt.get(name) ?? []), value]);
  const verified = await http.post('/api/branding/domain/verify');
  if (verified.status !== 200) throw new Error(`verifying ${domain}: ${verified.status} ${JSON.stringify(verified.body)}`);
  return verified;
}
