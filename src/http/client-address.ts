import ipaddr from 'ipaddr.js';

/**
 * The part of a client address that limits count. An IPv6 client is its /64: one subscriber or
 * host is usually given a whole /64, so counting single addresses would let it rotate through
 * 2^64 of them and never be limited. An IPv4-mapped IPv6 address counts as the IPv4 address.
 */
export function clientAddressKey(ip: string): string {
  // Most clients are IPv4; they pay for nothing but this check.
  if (!ip.includes(':')) return ip;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(ip);
  } catch {
    return ip;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
