import { expect } from 'chai';
import type { Options } from 'express-rate-limit';
import { createSlidingWindowStore, type SlidingWindowStore } from '../../server/state/sliding-window-store.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('sliding-window store', () => {
  let clock = 0;
  let store: SlidingWindowStore;

  function open(limit: number, windowMs: number, cleanupEveryMs?: number): SlidingWindowStore {
    store = createSlidingWindowStore(cleanupEveryMs, () => clock);
    store.init?.({ limit, windowMs } as Options);
    return store;
  }

  /** Whether express-rate-limit would let the request through: totalHits within the limit. */
  async function hit(key: string, limit: number): Promise<boolean> {
    const info = await store.increment(key);
    return info.totalHits <= limit;
  }

  beforeEach(() => {
    clock = 1_000_000;
  });

  afterEach(async () => {
    await store?.shutdown?.();
  });

  it('accepts up to the limit within the window, then refuses', async () => {
    open(3, 1000);
    expect(await hit('a', 3)).to.equal(true);
    clock += 100;
    expect(await hit('a', 3)).to.equal(true);
    clock += 100;
    const third = await store.increment('a');
    expect(third.totalHits).to.equal(3);
    // The window frees up when the oldest accepted request (at 1_000_000) leaves it.
    expect(third.resetTime?.getTime()).to.equal(1_001_000);
    clock += 100;
    const fourth = await store.increment('a');
    expect(fourth.totalHits).to.equal(4);
    expect(fourth.resetTime?.getTime()).to.equal(1_001_000);
  });

  it('keeps clients apart', async () => {
    open(2, 1000);
    expect(await hit('a', 2)).to.equal(true);
    expect(await hit('a', 2)).to.equal(true);
    expect(await hit('a', 2)).to.equal(false);
    expect(await hit('b', 2)).to.equal(true);
    expect(await hit('b', 2)).to.equal(true);
    expect(await hit('b', 2)).to.equal(false);
  });

  it('is a true sliding window: the oldest hit leaving lets exactly one more in', async () => {
    open(3, 1000);
    // Accepted at t = 0, 400, 800 (relative).
    const start = clock;
    for (const at of [0, 400, 800]) {
      clock = start + at;
      expect(await hit('a', 3), `t=${at}`).to.equal(true);
    }
    clock = start + 999;
    expect(await hit('a', 3), 't=999').to.equal(false);
    // A fixed window starting at t=0 would let three in at t=1000; a sliding one lets in exactly one.
    clock = start + 1000;
    expect(await hit('a', 3), 't=1000 first').to.equal(true);
    expect(await hit('a', 3), 't=1000 second').to.equal(false);
    // The next frees up when the t=400 hit leaves.
    clock = start + 1399;
    expect(await hit('a', 3), 't=1399').to.equal(false);
    clock = start + 1400;
    expect(await hit('a', 3), 't=1400').to.equal(true);
    expect(await hit('a', 3), 't=1400 again').to.equal(false);
    // After a whole quiet window everything is free again.
    clock = start + 5000;
    for (let i = 0; i < 3; i++) expect(await hit('a', 3), `t=5000 #${i}`).to.equal(true);
    expect(await hit('a', 3), 't=5000 #3').to.equal(false);
  });

  it('does not count refused requests: a client that keeps retrying gets in when the oldest hit leaves', async () => {
    open(2, 1000);
    const start = clock;
    expect(await hit('a', 2)).to.equal(true);
    clock = start + 500;
    expect(await hit('a', 2)).to.equal(true);
    // Hammering while refused...
    for (let t = 510; t < 1000; t += 10) {
      clock = start + t;
      expect(await hit('a', 2), `t=${t}`).to.equal(false);
    }
    // ...does not push the opening back.
    clock = start + 1000;
    expect(await hit('a', 2)).to.equal(true);
    const info = await store.get?.('a');
    expect(info?.totalHits).to.equal(2);
    expect(info?.resetTime?.getTime()).to.equal(start + 1500);
  });

  it('get reports the hits still in the window', async () => {
    open(5, 1000);
    expect(await store.get?.('nobody')).to.equal(undefined);
    const start = clock;
    await store.increment('a');
    clock = start + 600;
    await store.increment('a');
    expect((await store.get?.('a'))?.totalHits).to.equal(2);
    clock = start + 1000;
    expect((await store.get?.('a'))?.totalHits).to.equal(1);
    clock = start + 1600;
    expect((await store.get?.('a'))?.totalHits).to.equal(0);
  });

  it('grows its buffer up to the limit and keeps the order of hits', async () => {
    open(20, 1000);
    const start = clock;
    for (let i = 0; i < 20; i++) {
      clock = start + i * 10;
      expect(await hit('a', 20), `#${i}`).to.equal(true);
    }
    expect(await hit('a', 20)).to.equal(false);
    // The oldest (t=0) leaves at 1000, the next at 1010.
    clock = start + 1000;
    expect(await hit('a', 20)).to.equal(true);
    expect(await hit('a', 20)).to.equal(false);
    clock = start + 1010;
    expect(await hit('a', 20)).to.equal(true);
    expect((await store.get?.('a'))?.resetTime?.getTime()).to.equal(start + 20 + 1000);
  });

  it('counts every hit, in order, while a client\'s rate rises and falls past its ring\'s size', async () => {
    // Waves of 1 hit a millisecond, then 6: the ring wraps, fills while wrapped, grows, and refuses; a plain list of times is the reference.
    open(5000, 1000);
    const accepted: number[] = [];
    let refused = 0;
    for (let i = 0; i < 24_000; i++) {
      const fast = Math.floor(i / 6000) % 2 === 1;
      if (!fast || i % 6 === 0) clock += 1;
      while (accepted.length > 0 && (accepted[0] as number) <= clock - 1000) accepted.shift();
      const info = await store.increment('a');
      expect(info.totalHits, `#${i}`).to.equal(accepted.length + 1);
      if (accepted.length < 5000) accepted.push(clock);
      else refused += 1;
      expect(info.resetTime?.getTime(), `#${i}`).to.equal((accepted[0] as number) + 1000);
    }
    expect(refused).to.be.greaterThan(0);
  });

  it('decrement, resetKey and resetAll', async () => {
    open(2, 1000);
    await store.increment('a');
    await store.increment('a');
    expect(await hit('a', 2)).to.equal(false);
    await store.decrement('a');
    expect(await hit('a', 2)).to.equal(true);
    await store.resetKey('a');
    expect(await store.get?.('a')).to.equal(undefined);
    await store.increment('b');
    await store.increment('c');
    expect(store.size).to.equal(2);
    await store.resetAll?.();
    expect(store.size).to.equal(0);
  });

  it('cleanup drops clients whose hits all left the window, and keeps the others', async () => {
    open(3, 1000, 20);
    const start = clock;
    await store.increment('stale');
    clock = start + 900;
    await store.increment('fresh');
    expect(store.size).to.equal(2);
    clock = start + 1500;
    await sleep(80);
    expect(store.size).to.equal(1);
    expect((await store.get?.('fresh'))?.totalHits).to.equal(1);
    expect(await store.get?.('stale')).to.equal(undefined);
    clock = start + 2000;
    await sleep(80);
    expect(store.size).to.equal(0);
  });
});

describe('rate limit over HTTP', () => {
  let freeway: RunningFreeway | undefined;

  async function start(env: Record<string, string>): Promise<RunningFreeway> {
    freeway = await startFreeway({ env });
    return freeway;
  }

  afterEach(async () => {
    await freeway?.close();
    freeway = undefined;
  });

  const get = (fw: RunningFreeway, path: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${fw.url}${path}`, { headers });

  async function statuses(fw: RunningFreeway, n: number, headers: Record<string, string> = {}, path = '/v1/models'): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const response = await get(fw, path, headers);
      await response.arrayBuffer();
      out.push(response.status);
    }
    return out;
  }

  it('every answer of a rate-limited route carries RateLimit and RateLimit-Policy, counting down; /health carries none', async () => {
    const fw = await start({ RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000' });
    const seen: Array<string | null> = [];
    for (const path of ['/v1/models', '/v1/models/free:auto', '/v1/nowhere']) {
      const response = await get(fw, path);
      await response.arrayBuffer();
      seen.push(response.headers.get('ratelimit'));
      expect(response.headers.get('ratelimit-policy')).to.match(/^"freeway"; q=5; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    }
    expect(seen.map((value) => /r=(\d+)/.exec(value ?? '')?.[1])).to.deep.equal(['4', '3', '2']);
    const health = await get(fw, '/health');
    await health.arrayBuffer();
    expect(health.headers.get('ratelimit')).to.equal(null);
    expect(health.headers.get('ratelimit-policy')).to.equal(null);
  });

  it('RATE_LIMIT_MAX=3: the 4th request is a 429 with Retry-After and a rate_limit_error body', async () => {
    const fw = await start({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '30000' });
    expect(await statuses(fw, 3)).to.deep.equal([200, 200, 200]);
    const response = await get(fw, '/v1/models');
    expect(response.status).to.equal(429);
    const retryAfter = response.headers.get('retry-after');
    expect(retryAfter).to.match(/^\d+$/);
    expect(Number(retryAfter)).to.be.within(29, 30);
    const body = (await response.json()) as { error: { message: string; type: string; code: number } };
    expect(body).to.deep.equal({
      error: { message: `Rate limit exceeded. Retry after ${retryAfter} seconds.`, type: 'rate_limit_error', code: 429 },
    });
    // IETF's RateLimit headers (as draft 8 writes them) name Freeway's own policy; no legacy X-RateLimit-*.
    expect(response.headers.get('ratelimit')).to.match(/^"freeway"; r=0; t=(29|30)$/);
    expect(response.headers.get('ratelimit-policy')).to.match(/^"freeway"; q=3; w=30; pk=:[A-Za-z0-9+/=]+:$/);
    expect(response.headers.get('x-ratelimit-limit')).to.equal(null);
  });

  it('covers every /v1 route, POST chat completions included', async () => {
    const fw = await start({ RATE_LIMIT_MAX: '2' });
    const headers = { 'x-forwarded-for': '198.51.100.1' };
    expect((await get(fw, '/v1/models', headers)).status).to.equal(200);
    expect((await get(fw, '/v1/nope', headers)).status).to.equal(404);
    const chat = await fetch(`${fw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'free:auto', messages: 'not an array' }),
    });
    expect(chat.status).to.equal(429);
    expect(((await chat.json()) as { error: { type: string } }).error.type).to.equal('rate_limit_error');
  });

  it('behind a loopback proxy with private hops, the client is the nearest public x-forwarded-for entry', async () => {
    const fw = await start({ RATE_LIMIT_MAX: '2' });
    expect(await statuses(fw, 2, { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' })).to.deep.equal([200, 200]);
    // Same client behind a different proxy chain: same bucket.
    expect(await statuses(fw, 1, { 'x-forwarded-for': '203.0.113.7' })).to.deep.equal([429]);
    expect(await statuses(fw, 1, { 'x-forwarded-for': ' 203.0.113.7 ,10.9.9.9' })).to.deep.equal([429]);
    // A different first entry is a different client, even with the same later hops.
    expect(await statuses(fw, 2, { 'x-forwarded-for': '203.0.113.8, 10.0.0.1' })).to.deep.equal([200, 200]);
    // x-forwarded-for wins over x-real-ip and the socket.
    expect(await statuses(fw, 1, { 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '203.0.113.7' })).to.deep.equal([200]);
    expect(await statuses(fw, 1)).to.deep.equal([200]);
  });

  it('falls back to x-real-ip', async () => {
    const fw = await start({ RATE_LIMIT_MAX: '2' });
    expect(await statuses(fw, 3, { 'x-real-ip': '192.0.2.10' })).to.deep.equal([200, 200, 429]);
    expect(await statuses(fw, 2, { 'x-real-ip': '192.0.2.11' })).to.deep.equal([200, 200]);
    // The socket's own bucket is untouched.
    expect(await statuses(fw, 1)).to.deep.equal([200]);
  });

  it('falls back to the socket address', async () => {
    const fw = await start({ RATE_LIMIT_MAX: '2' });
    expect(await statuses(fw, 3)).to.deep.equal([200, 200, 429]);
    // The socket is 127.0.0.1: the same client as one that says so in x-real-ip.
    expect(await statuses(fw, 1, { 'x-real-ip': '127.0.0.1' })).to.deep.equal([429]);
    expect(await statuses(fw, 1, { 'x-forwarded-for': '203.0.113.50' })).to.deep.equal([200]);
  });

  it('does not limit /health, and /health does not use up the /v1 budget', async () => {
    const fw = await start({ RATE_LIMIT_MAX: '2' });
    expect(await statuses(fw, 6, {}, '/health')).to.deep.equal([200, 200, 200, 200, 200, 200]);
    expect(await statuses(fw, 3)).to.deep.equal([200, 200, 429]);
    expect(await statuses(fw, 2, {}, '/health')).to.deep.equal([200, 200]);
  });

  it('honours RATE_LIMIT_WINDOW_MS: a small window lets the client in again once it has passed', async () => {
    const fw = await start({ RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '300' });
    expect(await statuses(fw, 2)).to.deep.equal([200, 200]);
    // Both accepted requests were counted before this moment; the window has let them go 300 ms later.
    const accepted = Date.now();
    const refused = await get(fw, '/v1/models');
    expect(refused.status).to.equal(429);
    // Less than a second left: Retry-After rounds up to 1.
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(((await refused.json()) as { error: { message: string } }).error.message).to.equal('Rate limit exceeded. Retry after 1 seconds.');
    await sleep(Math.max(0, accepted + 350 - Date.now()));
    expect(await statuses(fw, 2)).to.deep.equal([200, 200]);
    expect(await statuses(fw, 1)).to.deep.equal([429]);
  });
});

describe('IPv6 clients are counted by their network prefix (RATE_LIMIT_IPV6_SUBNET)', () => {
  let freeway: RunningFreeway | undefined;

  afterEach(async () => {
    await freeway?.close();
    freeway = undefined;
  });

  /** Freeway behind a proxy on loopback, whose X-Forwarded-For it believes. */
  async function start(env: Record<string, string> = {}): Promise<RunningFreeway> {
    freeway = await startFreeway({ env: { TRUST_PROXY: 'loopback', RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '30000', ...env } });
    return freeway;
  }

  const from = (fw: RunningFreeway, address: string): Promise<Response> => fetch(`${fw.url}/v1/models`, { headers: { 'x-forwarded-for': address } });

  async function statusesFrom(fw: RunningFreeway, addresses: readonly string[]): Promise<number[]> {
    const out: number[] = [];
    for (const address of addresses) {
      const response = await from(fw, address);
      await response.arrayBuffer();
      out.push(response.status);
    }
    return out;
  }

  const hex = (bits: number): string => Math.floor(Math.random() * 2 ** bits).toString(16);
  /** A random address in 2001:db8:0:1200::/56: any low 8 bits of the fourth group, any interface id. */
  const inPrefix56 = (): string => `2001:db8:0:12${hex(8).padStart(2, '0')}:${hex(16)}:${hex(16)}:${hex(16)}:${hex(16)}`;

  async function expectRateLimited(response: Response): Promise<void> {
    expect(response.status).to.equal(429);
    const retryAfter = response.headers.get('retry-after');
    expect(retryAfter).to.match(/^\d+$/);
    expect(Number(retryAfter)).to.be.within(29, 30);
    expect(await response.json()).to.deep.equal({
      error: { message: `Rate limit exceeded. Retry after ${retryAfter} seconds.`, type: 'rate_limit_error', code: 429 },
    });
  }

  it('by default a /56 is one client: rotating addresses inside it does not escape RATE_LIMIT_MAX', async () => {
    const fw = await start();
    const rotating = ['2001:db8:0:1200::1', '2001:DB8:0:12FF:FFFF:FFFF:FFFF:FFFF', '2001:0db8:0000:1234:5678:9abc:def0:0001'];
    expect(await statusesFrom(fw, rotating)).to.deep.equal([200, 200, 200]);
    await expectRateLimited(await from(fw, '2001:db8:0:12ab::7'));
    for (let i = 0; i < 20; i++) {
      const address = inPrefix56();
      expect((await statusesFrom(fw, [address]))[0], address).to.equal(429);
    }
    // Other /56s, even next door, are other clients.
    expect(await statusesFrom(fw, ['2001:db8:0:1300::1', '2001:db8:0:1100::1', '2001:db8:1:1200::1'])).to.deep.equal([200, 200, 200]);
    expect(await statusesFrom(fw, ['2001:db8:0:13ff::2', '2001:db8:0:13ff::3'])).to.deep.equal([200, 200]);
    await expectRateLimited(await from(fw, '2001:db8:0:1300:abcd::9'));
  });

  it('RATE_LIMIT_IPV6_SUBNET=64: each /64 is a client, two in the same /56 are apart', async () => {
    const fw = await start({ RATE_LIMIT_IPV6_SUBNET: '64' });
    expect(await statusesFrom(fw, ['2001:db8:0:1200::1', '2001:db8:0:1200:ffff::2', '2001:db8:0:1200:1:2:3:4'])).to.deep.equal([200, 200, 200]);
    await expectRateLimited(await from(fw, '2001:db8:0:1200:dead:beef:0:1'));
    expect(await statusesFrom(fw, ['2001:db8:0:1201::1', '2001:db8:0:12ff::1', '2001:db8:0:1201::2', '2001:db8:0:1201::3'])).to.deep.equal([200, 200, 200, 200]);
    await expectRateLimited(await from(fw, '2001:db8:0:1201:ffff:ffff:ffff:ffff'));
  });

  it('RATE_LIMIT_IPV6_SUBNET=128: each IPv6 address is a client, however it is written', async () => {
    const fw = await start({ RATE_LIMIT_IPV6_SUBNET: '128' });
    expect(await statusesFrom(fw, ['2001:db8:0:1200::1', '2001:DB8:0:1200:0:0:0:1', '2001:0db8:0000:1200:0000:0000:0000:0001'])).to.deep.equal([200, 200, 200]);
    await expectRateLimited(await from(fw, '2001:db8::1200:0:0:0:1'));
    expect(await statusesFrom(fw, ['2001:db8:0:1200::2', '2001:db8:0:1200::3', '2001:db8:0:1200::4'])).to.deep.equal([200, 200, 200]);
  });

  it('an IPv4-mapped IPv6 address stays its IPv4 client, in either notation, and mapped clients do not share a prefix', async () => {
    const fw = await start();
    expect(await statusesFrom(fw, ['198.51.100.9', '::ffff:198.51.100.9', '::ffff:c633:6409'])).to.deep.equal([200, 200, 200]);
    await expectRateLimited(await from(fw, '0:0:0:0:0:FFFF:198.51.100.9'));
    expect(await statusesFrom(fw, ['::ffff:198.51.100.10', '::ffff:c633:640b', '198.51.100.12'])).to.deep.equal([200, 200, 200]);
  });
});
