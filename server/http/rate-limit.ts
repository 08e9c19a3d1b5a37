import { isIP } from 'node:net';
import type { Request, RequestHandler } from 'express';
import type { Store } from 'express-rate-limit';
import { errorBody, freewayError } from '../core/errors.ts';
import { detachedString } from '../core/detached-string.ts';
import { createSlidingWindowStore } from '../state/sliding-window-store.ts';
import { windowLimit } from './window-limit.ts';

/*
 * One subscriber holds a whole IPv6 /64, often a /56 or /48, and can pick any
 * address in it: counted by address, it would have 2^64 buckets. So an IPv6
 * client is its network prefix (RATE_LIMIT_IPV6_SUBNET bits, or the whole
 * address at 128), written in the canonical form of RFC 5952 with its length:
 * `2001:db8:0:1200::/56`. This runs for every request, so the address is read
 * by hand into a reused array rather than by regular expressions or a parser
 * that builds objects. IPv4 takes none of it.
 */

const groups = new Uint16Array(8);
const tailGroups = new Uint16Array(8);
const lengthSuffixes: readonly string[] = Array.from({ length: 129 }, (_, bits) => `/${bits}`);

const COLON = 58;
const DOT = 46;

/** Value of a hexadecimal digit's character code (the text was checked by isIP). */
const hexValue = (code: number): number => (code <= 57 ? code - 48 : (code | 32) - 87);

/** A dotted IPv4 address from `start` to `end`, as a 32-bit number. */
function readIPv4(text: string, start: number, end: number): number {
  let value = 0;
  let octet = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === DOT) {
      value = value * 256 + octet;
      octet = 0;
    } else {
      octet = octet * 10 + code - 48;
    }
  }
  return value * 256 + octet;
}

/**
 * The 16-bit groups written from `start` to `end` (a side of `::`, or the
 * whole address) into `into`, a dotted IPv4 tail as two; returns how many.
 */
function readGroups(text: string, start: number, end: number, into: Uint16Array): number {
  if (start === end) return 0;
  let count = 0;
  let value = 0;
  let groupStart = start;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === COLON) {
      into[count++] = value;
      value = 0;
      groupStart = i + 1;
    } else if (code === DOT) {
      const ipv4 = readIPv4(text, groupStart, end);
      into[count++] = Math.floor(ipv4 / 65_536);
      into[count++] = ipv4 % 65_536;
      return count;
    } else {
      value = value * 16 + hexValue(code);
    }
  }
  into[count++] = value;
  return count;
}

/** Fills `groups` from a valid IPv6 address without a zone; returns whether it ends in a dotted IPv4 address. */
function readIPv6(text: string): boolean {
  const gap = text.indexOf('::');
  if (gap === -1) {
    readGroups(text, 0, text.length, groups);
  } else {
    const head = readGroups(text, 0, gap, groups);
    const tail = readGroups(text, gap + 2, text.length, tailGroups);
    groups.fill(0, head, 8 - tail);
    for (let i = 0; i < tail; i++) groups[8 - tail + i] = tailGroups[i] as number;
  }
  return text.includes('.');
}

/** `groups` in RFC 5952's form: lower-case, no leading zeros, the longest run of two or more zero groups (the first of equals) as `::`. */
function formatGroups(): string {
  let runStart = -1;
  let runLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > runLength) {
      runStart = i;
      runLength = j - i;
    }
    i = j;
  }
  if (runLength < 2) runStart = -1;
  let text = '';
  for (let i = 0; i < 8; i++) {
    if (i === runStart) {
      text += '::';
      i += runLength - 1;
      continue;
    }
    if (text !== '' && !text.endsWith(':')) text += ':';
    text += (groups[i] as number).toString(16);
  }
  return text;
}

/** The IPv4 address in the last two of `groups`. */
const ipv4Tail = (): string =>
  `${(groups[6] as number) >> 8}.${(groups[6] as number) & 255}.${(groups[7] as number) >> 8}.${(groups[7] as number) & 255}`;

/**
 * An address as a rate-limit bucket key, or undefined when it is not an IP
 * address. IPv4 is itself. IPv6 loses its zone and becomes its network prefix
 * of `ipv6Subnet` bits (32 to 64; 128 keeps the whole address), however a
 * proxy wrote it. IPv4-mapped IPv6 (`::ffff:203.0.113.7`, in any notation)
 * and the old IPv4-compatible `::203.0.113.7` are the IPv4 address.
 */
export function bucketKey(address: string | undefined, ipv6Subnet: number): string | undefined {
  if (address === undefined) return undefined;
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return undefined;
  const zone = address.indexOf('%');
  const dotted = readIPv6(zone === -1 ? address : address.slice(0, zone));
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0) {
    // ::ffff:0:0/96 is IPv4-mapped; in ::/96 only the dotted notation says an IPv4 address is meant (`::1` is not 0.0.0.1).
    if (groups[5] === 0xffff || (groups[5] === 0 && dotted)) return ipv4Tail();
  }
  if (ipv6Subnet >= 128) return formatGroups();
  const whole = ipv6Subnet >> 4;
  const bits = ipv6Subnet & 15;
  if (bits !== 0) groups[whole] = (groups[whole] as number) & (0xffff << (16 - bits));
  groups.fill(0, bits === 0 ? whole : whole + 1);
  return formatGroups() + lengthSuffixes[ipv6Subnet];
}

/**
 * The client a request counts against, as Express's `trust proxy` sees it:
 * the nearest address in the X-Forwarded-For chain that is not a trusted
 * proxy (req.ips); X-Real-IP when a trusted peer sent it without
 * X-Forwarded-For; else the socket's address. A forwarded value that is not
 * an IP address is never a key: the nearer address that reported it is.
 */
/**
 * A key read from a header, made safe to keep for the whole window: an IPv4
 * address is the header's own text, which V8 may hold as a view into the whole
 * header (14 KB of forged entries before it), so it is copied. IPv6 keys are
 * newly written strings already.
 */
const fromHeader = (key: string, address: string): string => (key === address ? detachedString(key) : key);

export function clientIp(req: Request, ipv6Subnet: number): string {
  const socketAddress = req.socket.remoteAddress;
  // Furthest first, ending with the nearest proxy; empty unless the socket's peer is trusted.
  const chain = req.ips;
  for (const address of chain) {
    const key = bucketKey(address, ipv6Subnet);
    if (key !== undefined) return fromHeader(key, address);
  }
  if (chain.length === 0 && req.headers['x-forwarded-for'] === undefined && socketAddress !== undefined) {
    const real = req.headers['x-real-ip'];
    const trusted = req.app.get('trust proxy fn') as (address: string, hop: number) => boolean;
    if (typeof real === 'string' && trusted(socketAddress, 0)) {
      const address = real.trim();
      const key = bucketKey(address, ipv6Subnet);
      if (key !== undefined) return fromHeader(key, address);
    }
  }
  return bucketKey(socketAddress, ipv6Subnet) ?? 'unknown';
}

/** The name of Freeway's policy in the RateLimit headers: `RateLimit: "freeway"; r=99; t=60`. */
export const RATE_LIMIT_POLICY = 'freeway';

export interface RateLimitOptions {
  readonly max: number;
  readonly windowMs: number;
  /** IPv6 clients are counted by their network prefix of this many bits (RATE_LIMIT_IPV6_SUBNET); 128 counts each address. */
  readonly ipv6Subnet: number;
  readonly store?: Store;
  /** Told of every refusal (the metrics count them). */
  readonly onRefused?: () => void;
}

export function createRateLimit({ max, windowMs, ipv6Subnet, store, onRefused }: RateLimitOptions): RequestHandler & { store: Store } {
  const windowStore = store ?? createSlidingWindowStore();
  const middleware = windowLimit({
    windowMs,
    limit: max,
    store: windowStore,
    keyOf: (req) => clientIp(req, ipv6Subnet),
    // IETF's RateLimit and RateLimit-Policy headers on every answer, as draft 8 writes them, under the
    // policy name "freeway": a client sees Freeway's own budget (not a provider's) before it runs out.
    policy: RATE_LIMIT_POLICY,
    refuse(_req, res, _next, { retryAfterSeconds: seconds }) {
      res.setHeader('Retry-After', String(seconds));
      onRefused?.();
      const format = res.locals.errorBody ?? errorBody;
      const { status, type, message } = freewayError('FREEWAY_RATE_LIMITED', { seconds });
      res.locals.failure = message;
      res.status(status).json(format(status, type, message));
    },
  });
  return Object.assign(middleware, { store: windowStore });
}
