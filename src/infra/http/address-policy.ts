import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses an outgoing request to a user-given URL may reach: public unicast
 * only. Everything a server can reach but the internet cannot (loopback, private, CGNAT,
 * link-local with the cloud metadata endpoint, multicast, unspecified, reserved and
 * documentation ranges) is refused.
 */
const refusedIpv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", incl. the unspecified 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT (also Alibaba's metadata at 100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  refusedIpv4.addSubnet(network, prefix, 'ipv4');
}

// Inside 2000::/3, the only IPv6 block routed on the internet: the parts that are not.
const refusedGlobalIpv6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 32], // Teredo: tunnels to an embedded IPv4 address
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: tunnels to an embedded IPv4 address
] as const) {
  refusedGlobalIpv6.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit words of a valid IPv6 address (zone id dropped, dotted tail folded in). */
function ipv6Words(address: string): number[] {
  let text = address.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const words = (part: string | undefined) => (part ? part.split(':').map((word) => parseInt(word, 16)) : []);
  const [head, tail] = text.split('::');
  if (tail === undefined) return words(head);
  const left = words(head);
  const right = words(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * What a client address stands for when its tries are counted: an IPv4 address itself (an
 * IPv4-mapped one as that address), an IPv6 address its /64, which one subscriber's line gets
 * whole and may pick any address of, fresh for each try.
 */
export function clientNetworkOf(address: string): string {
  if (!isIPv6(address)) return address;
  const words = ipv6Words(address);
  if (words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff) {
    const [high, low] = [words[6]!, words[7]!];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return `${words
    .slice(0, 4)
    .map((word) => word.toString(16))
    .join(':')}::/64`;
}

/** Is `address` (an IP literal) a public unicast address that outgoing requests may reach? */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return !refusedIpv4.check(address, 'ipv4');
  if (!isIPv6(address)) return false;
  const words = ipv6Words(address);
  // ::ffff:a.b.c.d connects to a.b.c.d: judge it as that IPv4 address.
  if (words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff) {
    const [high, low] = [words[6]!, words[7]!];
    return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  // Outside 2000::/3: loopback, unspecified, IPv4-compatible, NAT64, ULA (incl. fd00:ec2::254), link-local, multicast.
  if ((words[0]! & 0xe000) !== 0x2000) return false;
  return !refusedGlobalIpv6.check(address.split('%')[0]!, 'ipv6');
}

/**
 * A host a user typed (a name, or an IP literal in any notation), as a URL parser reads it:
 * names lower-cased and IDNA-mapped without trailing dots, IP literals canonical and without
 * brackets, so 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 all come out as 127.0.0.1 (which
 * is what the system resolver would connect to). Null when the text is not a bare host.
 */
export function canonicalHost(text: string): string | null {
  const trimmed = text.trim();
  const inner = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  if (isIPv6(inner)) {
    // A zone id (fe80::1%eth0) is no URL syntax; isPublicAddress reads the part before it.
    return URL.canParse(`http://[${inner}]`) ? new URL(`http://[${inner}]`).hostname.slice(1, -1) : inner.toLowerCase();
  }
  // Anything that would make the URL parser read a port, credentials or a path instead.
  if (/[\s/\\?#@:[\]]/.test(inner) || !URL.canParse(`http://${inner}`)) return null;
  const host = new URL(`http://${inner}`).hostname.replace(/\.+$/, '');
  return host === '' ? null : host;
}

/** Is `host` (canonical, see canonicalHost) an IP literal rather than a name? */
export const isIpLiteral = (host: string): boolean => isIP(host.split('%')[0]!) !== 0;

/** localhost and *.localhost name this machine whatever DNS says (RFC 6761). */
export const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');
