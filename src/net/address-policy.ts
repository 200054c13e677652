// Which addresses a page fetch may connect to: public unicast only. Loopback, private, link-local,
// CGNAT, unique-local, multicast, reserved and the cloud metadata addresses are refused, in IPv4,
// IPv6 and IPv4 written inside IPv6 (mapped, compatible, NAT64, 6to4, Teredo), unless the operator
// trusts the host or its range (`webTools.fetch.allowHosts`).
import ipaddr from 'ipaddr.js';

/** Where instance credentials live on the big clouds; refused even inside an allowed range. */
const METADATA = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];

/** Why an address is refused, in words for the model; undefined when it is public. */
export function refusedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'it is not an IP address';
  const parsed = ipaddr.parse(address);
  if (METADATA.some((m) => ipaddr.parse(m).toNormalizedString() === parsed.toNormalizedString()))
    return 'it is a cloud metadata address';
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return refusedAddressReason(v6.toIPv4Address().toString());
    // ::/8 holds the unspecified, loopback, IPv4-compatible and translated forms.
    if ((v6.parts[0] ?? 0) === 0) return 'it is a reserved IPv6 address';
  }
  const range = parsed.range();
  return range === 'unicast' ? undefined : `it is a ${RANGE_WORDS[range] ?? range} address`;
}

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  private: 'private network',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  uniqueLocal: 'unique-local (private IPv6)',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
};

/** The operator's trusted hosts: names (exact, or `*.suffix`) and address ranges (CIDR or one IP). */
export class AllowList {
  private readonly names: string[] = [];
  private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const e = raw.trim().toLowerCase();
      if (e === '') continue;
      if (ipaddr.isValidCIDR(e)) this.ranges.push(ipaddr.parseCIDR(e));
      else if (ipaddr.isValid(e)) {
        const ip = ipaddr.parse(e);
        this.ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
      } else this.names.push(e);
    }
  }

  /** The URL's host name (no brackets) is trusted by name. */
  trustsName(host: string): boolean {
    const h = host.toLowerCase().replace(/\.$/, '');
    return this.names.some((n) => (n.startsWith('*.') ? h.endsWith(n.slice(1)) : h === n));
  }

  /** The address sits in a trusted range. */
  trustsAddress(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const ip = ipaddr.process(address);
    return this.ranges.some(([base, bits]) => ip.kind() === base.kind() && ip.match(base, bits));
  }
}

/** Why connecting to `address` for `host` is refused; undefined when it may go ahead. */
export function addressVerdict(
  host: string,
  address: string,
  allow: AllowList,
): string | undefined {
  const reason = refusedAddressReason(address);
  if (reason === undefined) return undefined;
  if (reason.includes('metadata')) return reason;
  return allow.trustsName(host) || allow.trustsAddress(address) ? undefined : reason;
}
