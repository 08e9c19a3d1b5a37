import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';

async function probe(freeway: RunningFreeway, path: '/livez' | '/readyz'): Promise<{ status: number; body: unknown; type: string | null }> {
  const response = await fetch(`${freeway.url}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
}

describe('GET /livez and /readyz', function () {
  let freeway: RunningFreeway;
  before(async function () {
    freeway = await startFreeway({ env: { RATE_LIMIT_MAX: '2' } });
  });
  after(async function () {
    await freeway.close();
  });
  afterEach(function () {
    freeway.readiness.phase = 'ready';
  });

  it('answer 200 while Freeway serves, as JSON', async function () {
    expect(await probe(freeway, '/livez')).to.deep.equal({ status: 200, type: 'application/json; charset=utf-8', body: { status: 'ok' } });
    expect(await probe(freeway, '/readyz')).to.deep.equal({ status: 200, type: 'application/json; charset=utf-8', body: { status: 'ready' } });
  });

  it('are not rate limited and not logged per call', async function () {
    const before = freeway.logs.length;
    for (let i = 0; i < 10; i++) {
      expect((await probe(freeway, '/readyz')).status).to.equal(200);
      expect((await probe(freeway, '/livez')).status).to.equal(200);
    }
    expect(freeway.logs.slice(before).filter((line) => line.includes('/livez') || line.includes('/readyz'))).to.deep.equal([]);
    // The API's limit of 2 per window is still there for everything else.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${freeway.url}/v1/models`)).status);
    expect(statuses).to.deep.equal([200, 200, 429]);
  });

  it('/readyz is 503 with the reason while Freeway shuts down; /livez stays 200', async function () {
    // server/serve.ts sets this on the first SIGTERM or SIGINT, before draining.
    freeway.readiness.phase = 'stopping';
    expect(await probe(freeway, '/readyz')).to.deep.include({ status: 503, body: { status: 'stopping', reason: 'Freeway is shutting down: it takes no new requests.' } });
    expect((await probe(freeway, '/livez')).status).to.equal(200);
  });

  it('/readyz is 503 while start-up is unfinished', async function () {
    // server/serve.ts marks the app ready once it listens.
    freeway.readiness.phase = 'starting';
    expect(await probe(freeway, '/readyz')).to.deep.include({ status: 503, body: { status: 'starting', reason: 'Freeway has not finished starting.' } });
  });

  describe('with Redis', function () {
    let redis: RunningRedis;
    before(async function () {
      skipWithoutRedis(this);
    });
    beforeEach(async function () {
      redis = await startRedis();
    });
    afterEach(async function () {
      await redis?.kill();
    });

    const untilStatus = async (on: RunningFreeway, status: string): Promise<{ status: number; body: unknown }> => {
      for (;;) {
        const seen = await probe(on, '/readyz');
        if ((seen.body as { status: string }).status === status) return seen;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const redisEnv = (): Record<string, string> => ({ REDIS_URL: redis.url, KEY_HASH_SECRET: 'a-shared-secret-of-enough-length' });

    it('Redis stopped: 200 degraded with the reason (Freeway serves from memory), ready again when it is back', async function () {
      const on = await startFreeway({ env: redisEnv() });
      try {
        expect(await probe(on, '/readyz')).to.deep.include({ status: 200, body: { status: 'ready' } });
        await redis.kill();
        expect(await untilStatus(on, 'degraded')).to.deep.equal({
          status: 200,
          type: 'application/json; charset=utf-8',
          body: { status: 'degraded', reason: 'Redis is unreachable: rate limits and provider health are kept in this process\'s memory until it answers again.' },
        });
        redis = await startRedis(redis.port);
        expect((await untilStatus(on, 'ready')).status).to.equal(200);
      } finally {
        await on.close();
      }
    });

    it('READYZ_REQUIRE_REDIS=true: Redis stopped is a 503', async function () {
      const on = await startFreeway({ env: { ...redisEnv(), READYZ_REQUIRE_REDIS: 'true' } });
      try {
        await redis.kill();
        expect(await untilStatus(on, 'unavailable')).to.deep.equal({
          status: 503,
          type: 'application/json; charset=utf-8',
          body: { status: 'unavailable', reason: 'Redis is unreachable, and READYZ_REQUIRE_REDIS=true.' },
        });
      } finally {
        await on.close();
      }
    });
  });
});
