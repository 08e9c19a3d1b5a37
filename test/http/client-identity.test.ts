import { expect } from 'chai';
import { ipKeyGenerator, type Options } from 'express-rate-limit';
import { Redis } from 'ioredis';
import { loadConfig } from '../../server/config/index.ts';
import { bucketKey } from '../../server/http/rate-limit.ts';
import { createRedisRateLimitStore } from '../../server/state/redis/rate-limit-store.ts';
import { createSlidingWindowStore, MAX_STORE_KEY_LENGTH } from '../../server/state/sliding-window-store.ts';
import { expectError } from '../support/errors.ts';
import { heapKeptMb } from '../support/memory.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';

/** Status of one rate-limited request (`/v1/nope`: a cheap 404 behind the limit) with these headers. */
async function status(freeway: RunningFreeway, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${freeway.url}/v1/nope`, { headers });
  await response.arrayBuffer();
  return response.status;
}

async function statuses(freeway: RunningFreeway, list: ReadonlyArray<Record<string, string>>): Promise<number[]> {
  const out: number[] = [];
  for (const headers of list) out.push(await status(freeway, headers));
  return out;
}

let counter = 0;
/** A documentation address (RFC 5737) not used before in this file. */
const fresh = (): string => `198.51.100.${++counter % 250}`;
const forged = (i: number): string => `203.0.${Math.floor(i / 250)}.${i % 250}`;

describe('client identity: which address a request counts against', () => {
  let freeway: RunningFreeway | undefined;

  async function start(env: Record<string, string>): Promise<RunningFreeway> {
    freeway = await startFreeway({ env: { RATE_LIMIT_MAX: '3', ...env } });
    return freeway;
  }

  afterEach(async () => {
    await freeway?.close();
    freeway = undefined;
  });

  it('TRUST_PROXY=false: rotating X-Forwarded-For and X-Real-IP does not escape RATE_LIMIT_MAX', async () => {
    const fw = await start({ TRUST_PROXY: 'false' });
    const rotating = Array.from({ length: 8 }, (_, i): Record<string, string> => (i % 2 === 0 ? { 'x-forwarded-for': forged(i) } : { 'x-real-ip': forged(i) }));
    expect(await statuses(fw, rotating)).to.deep.equal([404, 404, 404, 429, 429, 429, 429, 429]);
    const refused = await fetch(`${fw.url}/v1/nope`, { headers: { 'x-forwarded-for': forged(99), 'x-real-ip': forged(98) } });
    await expectError(refused, 429, 'rate_limit_error');
  });

  it('by default, a forged first entry before the address nginx appends ($proxy_add_x_forwarded_for) does not escape RATE_LIMIT_MAX', async () => {
    const fw = await start({});
    const real = '192.0.2.44';
    const rotating = Array.from({ length: 8 }, (_, i) => ({ 'x-forwarded-for': `${forged(i)}, ${real}` }));
    expect(await statuses(fw, rotating)).to.deep.equal([404, 404, 404, 429, 429, 429, 429, 429]);
    // The real client, however it is written, is that bucket; another one is not.
    expect(await status(fw, { 'x-forwarded-for': real })).to.equal(429);
    expect(await status(fw, { 'x-forwarded-for': `${real}, 10.1.2.3` })).to.equal(429);
    expect(await status(fw, { 'x-forwarded-for': '192.0.2.45' })).to.equal(404);
  });

  it('a trusted chain gives the nearest address that is not trusted', async () => {
    const fw = await start({});
    // Behind a loopback peer: 10.0.0.2 and 192.168.1.1 are private (trusted) hops, 192.0.2.9 the client.
    const chain = { 'x-forwarded-for': '198.51.100.77, 192.0.2.9, 10.0.0.2, 192.168.1.1' };
    expect(await statuses(fw, [chain, chain, chain, chain])).to.deep.equal([404, 404, 404, 429]);
    expect(await status(fw, { 'x-forwarded-for': '192.0.2.9' })).to.equal(429);
    // The address the client claimed for itself is not whom the requests counted against.
    expect(await status(fw, { 'x-forwarded-for': '198.51.100.77' })).to.equal(404);
    // Nor are the proxies, or the socket.
    expect(await status(fw, { 'x-forwarded-for': '10.0.0.2' })).to.equal(404);
    expect(await status(fw)).to.equal(404);
  });

  it('TRUST_PROXY=1 trusts one hop: the last X-Forwarded-For entry is the client', async () => {
    const fw = await start({ TRUST_PROXY: '1' });
    const rotating = Array.from({ length: 4 }, (_, i) => ({ 'x-forwarded-for': `${forged(i)}, 10.9.8.7` }));
    expect(await statuses(fw, rotating)).to.deep.equal([404, 404, 404, 429]);
    expect(await status(fw, { 'x-forwarded-for': '10.9.8.7' })).to.equal(429);
  });

  it('TRUST_PROXY with addresses and subnets: a CDN with public addresses in front', async () => {
    const fw = await start({ TRUST_PROXY: '127.0.0.1, 203.0.113.0/24' });
    const viaCdn = (edge: string) => ({ 'x-forwarded-for': `192.0.2.60, ${edge}` });
    expect(await statuses(fw, [viaCdn('203.0.113.1'), viaCdn('203.0.113.2'), viaCdn('203.0.113.3'), viaCdn('203.0.113.4')])).to.deep.equal([404, 404, 404, 429]);
    // An address outside the CDN's range is the client itself.
    expect(await statuses(fw, [viaCdn('198.51.100.1')])).to.deep.equal([404]);
  });

  it('TRUST_PROXY=true trusts every hop: the furthest address is the client', async () => {
    const fw = await start({ TRUST_PROXY: 'true' });
    expect(await statuses(fw, Array.from({ length: 4 }, (_, i) => ({ 'x-forwarded-for': `192.0.2.70, ${forged(i)}` })))).to.deep.equal([404, 404, 404, 429]);
  });

  it('X-Real-IP counts only from a trusted peer and only without X-Forwarded-For', async () => {
    const fw = await start({});
    const client = { 'x-real-ip': '192.0.2.80' };
    expect(await statuses(fw, [client, client, client, client])).to.deep.equal([404, 404, 404, 429]);
    // With X-Forwarded-For, that is the chain; X-Real-IP is not read.
    expect(await status(fw, { 'x-forwarded-for': '192.0.2.81', 'x-real-ip': '192.0.2.80' })).to.equal(404);
    await freeway?.close();
    const untrusting = await start({ TRUST_PROXY: 'false' });
    const rotating = Array.from({ length: 4 }, (_, i) => ({ 'x-real-ip': forged(i) }));
    expect(await statuses(untrusting, rotating)).to.deep.equal([404, 404, 404, 429]);
  });

  it('a forwarded value that is not an IP address is never a bucket: the nearer address that reported it is', async () => {
    const fw = await start({});
    const junk = (i: number): string => `${'x'.repeat(14_000)}${i}`;
    const behindProxy = { 'x-forwarded-for': `${junk(3)}, 10.0.0.1` };
    const rotating: Array<Record<string, string>> = [
      { 'x-forwarded-for': junk(1) },
      { 'x-forwarded-for': `unknown${counter}` },
      { 'x-real-ip': junk(2) },
    ];
    // They count against the socket (127.0.0.1) or the private hop that reported the junk; none gets a bucket of its own.
    expect(await statuses(fw, rotating)).to.deep.equal([404, 404, 404]);
    expect(await status(fw)).to.equal(429);
    expect(await statuses(fw, [behindProxy, behindProxy, behindProxy, behindProxy])).to.deep.equal([404, 404, 404, 429]);
    expect(await status(fw, { 'x-forwarded-for': '10.0.0.1' })).to.equal(429);
  });

  it('an IPv4-mapped IPv6 address is the IPv4 client', async () => {
    const fw = await start({});
    const client = fresh();
    expect(await statuses(fw, [{ 'x-forwarded-for': client }, { 'x-forwarded-for': `::ffff:${client}` }, { 'x-forwarded-for': `::FFFF:${client}` }, { 'x-forwarded-for': client }])).to.deep.equal([404, 404, 404, 429]);
  });

  it('bucketKey: IP addresses only, normalized, IPv6 by its prefix, at most 39 characters', () => {
    expect(bucketKey('203.0.113.7', 56)).to.equal('203.0.113.7');
    expect(bucketKey('::ffff:203.0.113.7', 56)).to.equal('203.0.113.7');
    expect(bucketKey('::ffff:cb00:7107', 64)).to.equal('203.0.113.7');
    expect(bucketKey('2001:DB8::1', 128)).to.equal('2001:db8::1');
    expect(bucketKey('2001:DB8::1', 56)).to.equal('2001:db8::/56');
    expect(bucketKey('2001:db8:0:12ff:ffff::1', 56)).to.equal('2001:db8:0:1200::/56');
    expect(bucketKey('fe80::1%eth0', 128)).to.equal('fe80::1');
    expect(bucketKey('fe80::1%eth0', 64)).to.equal('fe80::/64');
    for (const subnet of [32, 56, 64, 128]) {
      expect(bucketKey('0000:0000:0000:0000:0000:ffff:255.255.255.255', subnet)).to.equal('255.255.255.255');
      expect(bucketKey('ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255', subnet)).to.have.length.at.most(39);
      for (const junk of ['', 'unknown', '203.0.113.07', '203.0.113.7:443', 'x'.repeat(14_000), '[::1]', '2001:db8::1/56']) expect(bucketKey(junk, subnet), junk).to.equal(undefined);
    }
  });

  it("bucketKey: the same prefix as express-rate-limit's ipKeyGenerator, for any address and prefix length", () => {
    const group = (): string => (1 + Math.floor(Math.random() * 65_535)).toString(16);
    for (let i = 0; i < 2000; i++) {
      // Never IPv4-mapped or -compatible (those are IPv4 clients, tested above): the first group is not 0.
      const groups = Array.from({ length: 8 }, (_, n) => (n > 0 && Math.random() < 0.3 ? '0' : group()));
      // Written out in full, or with a run of zeros as ::, upper- or lower-case.
      const full = groups.join(':');
      const address = i % 3 === 0 ? full.toUpperCase() : i % 3 === 1 ? full : full.replace(/(^|:)0(:0)+(:|$)/, '::');
      for (const subnet of [32, 40, 48, 52, 56, 60, 63, 64]) {
        expect(bucketKey(address, subnet), `${address}/${subnet}`).to.equal(ipKeyGenerator(address, subnet));
      }
      // Each address apart: in the canonical form of RFC 5952, as a URL writes its host.
      expect(bucketKey(address, 128), address).to.equal(new URL(`http://[${address}]/`).hostname.slice(1, -1));
    }
  });
});

describe('configuration: TRUST_PROXY, RATE_LIMIT_MAX_CLIENTS and RATE_LIMIT_IPV6_SUBNET', () => {
  it('defaults: loopback, link-local and private peers are trusted; 100,000 clients; IPv6 by /56', async () => {
    const config = loadConfig({}, await providerPlugins());
    expect(config.server.trustProxy).to.equal('loopback, linklocal, uniquelocal');
    expect(config.rateLimit.maxClients).to.equal(100_000);
    expect(config.rateLimit.ipv6Subnet).to.equal(56);
  });

  it('RATE_LIMIT_IPV6_SUBNET: a prefix length from 32 to 64, or 128 for each address', async () => {
    const plugins = await providerPlugins();
    for (const bits of [32, 48, 60, 64, 128]) expect(loadConfig({ RATE_LIMIT_IPV6_SUBNET: String(bits) }, plugins).rateLimit.ipv6Subnet).to.equal(bits);
    expect(loadConfig({ RATE_LIMIT_IPV6_SUBNET: ' 48 ' }, plugins).rateLimit.ipv6Subnet).to.equal(48);
    for (const bad of ['31', '65', '127', '129', '0', '-56', '56.5', '/56', 'false', '0x38', '1e2']) {
      expect(() => loadConfig({ RATE_LIMIT_IPV6_SUBNET: bad }, plugins), bad).to.throw(
        `RATE_LIMIT_IPV6_SUBNET must be a prefix length from 32 to 64, or 128 to count each IPv6 address apart, got "${bad}"`,
      );
    }
  });

  it("takes Express's values", async () => {
    const plugins = await providerPlugins();
    expect(loadConfig({ TRUST_PROXY: 'false' }, plugins).server.trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: 'TRUE' }, plugins).server.trustProxy).to.equal(true);
    expect(loadConfig({ TRUST_PROXY: '2' }, plugins).server.trustProxy).to.equal(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, 2001:db8::/32' }, plugins).server.trustProxy).to.equal('loopback, 10.0.0.0/8, 2001:db8::/32');
  });

  it('refuses what Express would not understand, and a cap below 1', async () => {
    const plugins = await providerPlugins();
    expect(() => loadConfig({ TRUST_PROXY: 'my-balancer' }, plugins)).to.throw(/^TRUST_PROXY must be true, false, a hop count, or a comma-separated list/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' }, plugins)).to.throw(/^TRUST_PROXY must be/);
    expect(() => loadConfig({ RATE_LIMIT_MAX_CLIENTS: '0' }, plugins)).to.throw('RATE_LIMIT_MAX_CLIENTS must be an integer >= 1, got "0"');
  });
});

describe('the rate-limit store is bounded', () => {
  it('in memory: never more than maxClients; the least recently seen goes first', async () => {
    const store = createSlidingWindowStore(60_000, Date.now, 3);
    store.init?.({ limit: 2, windowMs: 60_000 } as Options);
    for (const key of ['a', 'b', 'c']) await store.increment(key);
    await store.increment('a'); // a is now the most recently seen
    await store.increment('d'); // evicts b
    expect(store.size).to.equal(3);
    expect(await store.get?.('b')).to.equal(undefined);
    expect((await store.get?.('a'))?.totalHits).to.equal(2);
    for (let i = 0; i < 1000; i++) await store.increment(`client-${i}`);
    expect(store.size).to.equal(3);
    await store.shutdown?.();
  });

  it('in memory: 100,000 clients of one request each take under 5 MB besides their keys (a flood of new addresses is all such clients)', async () => {
    const store = createSlidingWindowStore(60_000, Date.now, 100_000);
    store.init?.({ limit: 60, windowMs: 60_000 } as Options);
    const keys = Array.from({ length: 100_000 }, (_, i) => `11.${100 + Math.floor(i / 10_000)}.${100 + (Math.floor(i / 100) % 100)}.${100 + (i % 100)}`);
    const before = heapKeptMb();
    for (const key of keys) await store.increment(key);
    const kept = heapKeptMb() - before;
    // An object per client took 12.7 MB here.
    expect(kept, `${kept.toFixed(1)} MB`).to.be.below(5);
    expect(store.size).to.equal(100_000);
    // Each is still counted: a second request is the client's second hit.
    expect((await store.increment(keys[5] as string)).totalHits).to.equal(2);
    expect((await store.get?.(keys[6] as string))?.totalHits).to.equal(1);
    await store.shutdown?.();
  });

  it('in memory: a key is kept to MAX_STORE_KEY_LENGTH characters', async () => {
    const store = createSlidingWindowStore(60_000, Date.now, 10);
    store.init?.({ limit: 5, windowMs: 60_000 } as Options);
    const long = 'k'.repeat(MAX_STORE_KEY_LENGTH);
    await store.increment(`${long}first`);
    await store.increment(`${long}second`);
    expect(store.size).to.equal(1);
    expect((await store.get?.(long))?.totalHits).to.equal(2);
    await store.shutdown?.();
  });

  it('over HTTP: with RATE_LIMIT_MAX_CLIENTS=3, a fourth client evicts the least recently seen, whose window starts afresh', async () => {
    const fw = await startFreeway({ env: { RATE_LIMIT_MAX: '1', RATE_LIMIT_MAX_CLIENTS: '3' } });
    try {
      const [a, b, c, d] = ['192.0.2.101', '192.0.2.102', '192.0.2.103', '192.0.2.104'].map((ip) => ({ 'x-forwarded-for': ip }));
      expect(await statuses(fw, [a, a] as Array<Record<string, string>>)).to.deep.equal([404, 429]);
      expect(await statuses(fw, [b, c, d] as Array<Record<string, string>>)).to.deep.equal([404, 404, 404]);
      // a was the least recently seen of four: its window is gone.
      expect(await status(fw, a)).to.equal(404);
      // d is still tracked.
      expect(await status(fw, d)).to.equal(429);
    } finally {
      await fw.close();
    }
  });
});

describe('the rate-limit store is bounded in Redis', function () {
  this.timeout(20_000);
  let redis: RunningRedis;
  let client: Redis;

  before(async function () {
    skipWithoutRedis(this);
    redis = await startRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  });

  after(async () => {
    client?.disconnect();
    await redis?.kill();
  });

  it('never more than maxClients windows; the least recently seen goes first; keys are cut', async () => {
    // Redis's clock has milliseconds, and clients seen in the same one tie: a clock of our own tells them apart.
    let clock = Date.now();
    const store = createRedisRateLimitStore(client, { prefix: 'cap:', maxClients: 3, now: () => ++clock });
    store.init?.({ limit: 1, windowMs: 60_000 } as Options);
    for (const key of ['a', 'b', 'c']) await store.increment(key);
    expect((await store.increment('a')).totalHits).to.equal(2); // refused, but seen
    await store.increment('d'); // evicts b
    expect((await store.increment('b')).totalHits, 'b starts afresh').to.equal(1);
    for (let i = 0; i < 200; i++) await store.increment(`client-${i}`);
    await store.increment('x'.repeat(10_000));
    const windows = (await client.keys('cap:*')).filter((key) => key !== 'cap:~clients');
    expect(windows).to.have.length(3);
    expect(await client.zcard('cap:~clients')).to.equal(3);
    for (const key of windows) expect(key.length).to.be.at.most('cap:'.length + MAX_STORE_KEY_LENGTH);
    expect(await client.pttl('cap:~clients')).to.be.within(1, 60_000);
  });

  it('over HTTP through Redis: a fourth client evicts the least recently seen', async () => {
    const fw = await startFreeway({
      env: { REDIS_URL: redis.url, KEY_HASH_SECRET: 'test-secret-for-key-hashes-0123456789', RATE_LIMIT_MAX: '1', RATE_LIMIT_MAX_CLIENTS: '3' },
    });
    try {
      // startFreeway returned once Freeway's Redis connection was ready: no request was let through unseen.
      expect(await client.exists('freeway:rl:~clients')).to.equal(0);
      const [a, b, c, d] = ['192.0.2.111', '192.0.2.112', '192.0.2.113', '192.0.2.114'].map((ip) => ({ 'x-forwarded-for': ip }));
      expect(await statuses(fw, [a, a] as Array<Record<string, string>>)).to.deep.equal([404, 429]);
      expect(await statuses(fw, [b, c, d] as Array<Record<string, string>>)).to.deep.equal([404, 404, 404]);
      expect(await status(fw, a)).to.equal(404);
      const windows = (await client.keys('freeway:rl:*')).filter((key) => !key.endsWith('~clients'));
      expect(windows.length).to.be.at.most(3);
    } finally {
      await fw.close();
    }
  });
});
