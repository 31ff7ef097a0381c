import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where a company's provider settings may send the server: public addresses only, so a provider
 * URL or SMPP host cannot reach this machine, its network or the cloud's metadata service.
 * Operators name private hosts they do mean (an on-premises SMSC, a local fake in tests) in
 * PROVIDER_ALLOWED_PRIVATE_HOSTS.
 */

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 among it
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT, some clouds' metadata (100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, 169.254.169.254 metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, and the old IPv4-compatible form
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // the old site-local
  ['ff00::', 8], // multicast
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** IPv6 prefixes that carry an IPv4 address in their last 32 bits (NAT64), checked as that address. */
const EMBEDS_IPV4 = new BlockList();
EMBEDS_IPV4.addSubnet('64:ff9b::', 96, 'ipv6');
EMBEDS_IPV4.addSubnet('64:ff9b:1::', 48, 'ipv6');

/** Why a connection to a provider is refused: the words after "refused:". */
export const NON_PUBLIC_REASON = 'it points at a private, loopback or link-local address';
export const NOT_A_HOST_REASON = 'it is not a host name or IP address';

/** How long a save waits for DNS; a name still unresolved passes (the connection checks again). */
const CHECK_LOOKUP_MS = 3_000;

/** Thrown by the guarded lookup, so a connection attempt fails like any other, with this reason. */
export class NonPublicAddressError extends Error {
  readonly code = 'ENONPUBLIC';
  constructor() {
    super(NON_PUBLIC_REASON);
  }
}

/**
 * A host as WHATWG URL parsing writes it: lower case, an IPv4 address in dotted form whatever
 * numeric form it came in (2130706433, 0x7f.1), an IPv6 address compressed and without brackets.
 * Null when it is not a host at all.
 */
export function canonicalHost(host: string): string | null {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (bare === '' || /[\s/?#@\\]/.test(bare)) return null;
  try {
    const { hostname } = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`);
    return hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  } catch {
    return null;
  }
}

/** True for an IP address outside every private, loopback, link-local, unique-local and reserved range. */
export function isPublicAddress(address: string): boolean {
  const canonical = canonicalHost(address.replace(/%.*$/, '')) ?? '';
  const family = isIP(canonical);
  if (family === 4) return !NON_PUBLIC.check(canonical, 'ipv4');
  if (family !== 6) return false;
  // Covers ::ffff:a.b.c.d too: BlockList checks an IPv4-mapped address against the IPv4 ranges.
  if (NON_PUBLIC.check(canonical, 'ipv6')) return false;
  if (EMBEDS_IPV4.check(canonical, 'ipv6')) return isPublicAddress(embeddedIpv4(canonical));
  return true;
}

/** The IPv4 address in the last 32 bits of a compressed IPv6 address (its last two groups). */
function embeddedIpv4(canonical: string) {
  const groups = canonical.split(':').slice(-2);
  const [high, low] = groups.map((group) => Number.parseInt(group || '0', 16));
  return [high! >> 8, high! & 0xff, low! >> 8, low! & 0xff].join('.');
}

export type PublicAddressPolicy = {
  /**
   * What can be told without DNS: null for a public address, a listed host or a name; the
   * reason for a private or local address, `localhost`, or something that is no host.
   */
  refusalOf(host: string): string | null;
  /**
   * The full check: the host as written, then every address its name resolves to (refused if ANY
   * is private and not listed). A name that does not resolve passes: nothing can be reached
   * through it now, and the connection checks again.
   */
  check(host: string): Promise<string | null>;
  /**
   * A `lookup` for net.connect and http.request: resolves the name and fails the connection with
   * NonPublicAddressError when any address is refused, so the address checked is the address used.
   */
  lookup: LookupFunction;
};

/** A name's addresses, as node:dns/promises lookup({ all: true }) gives them. */
export type Resolve = (host: string, options: LookupOptions) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (host, options) =>
  dnsLookup(host, { all: true, family: options.family ?? 0, hints: options.hints });

/**
 * `allowedHosts`: host names or addresses (PROVIDER_ALLOWED_PRIVATE_HOSTS) that may be private.
 * `resolve` stands in for DNS in tests (a name that turns private between save and connection).
 */
export function createPublicAddressPolicy(
  allowedHosts: readonly string[],
  resolve: Resolve = systemResolve,
): PublicAddressPolicy {
  const allowed = new Set(allowedHosts.map((host) => canonicalHost(host)).filter((host) => host !== null));
  const isAllowed = (host: string) => allowed.has(canonicalHost(host) ?? '');
  const addressAllowed = (address: string) => isPublicAddress(address) || isAllowed(address);

  function refusalOf(host: string): string | null {
    const canonical = canonicalHost(host);
    if (canonical === null) return NOT_A_HOST_REASON;
    if (allowed.has(canonical)) return null;
    if (isIP(canonical)) return isPublicAddress(canonical) ? null : NON_PUBLIC_REASON;
    // The loopback name resolves to this machine without asking DNS.
    if (canonical === 'localhost' || canonical.endsWith('.localhost')) return NON_PUBLIC_REASON;
    return null;
  }

  async function check(host: string) {
    const refusal = refusalOf(host);
    if (refusal || isAllowed(host) || isIP(canonicalHost(host)!)) return refusal;
    let timer: NodeJS.Timeout | undefined;
    const addresses = await Promise.race([
      resolve(canonicalHost(host)!, {}).catch(() => []),
      new Promise<LookupAddress[]>((settle) => {
        timer = setTimeout(() => settle([]), CHECK_LOOKUP_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    return addresses.every(({ address }) => addressAllowed(address)) ? null : NON_PUBLIC_REASON;
  }

  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname, options).then(
      (addresses) => {
        if (!isAllowed(hostname) && !addresses.every(({ address }) => addressAllowed(address)))
          return callback(new NonPublicAddressError(), '', 0);
        if (options.all) return callback(null, addresses);
        const [first] = addresses;
        callback(null, first?.address ?? '', first?.family ?? 4);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

  return { refusalOf, check, lookup };
}
