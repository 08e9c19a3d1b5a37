import { expect } from 'chai';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { headerFor, testKeys } from '../support/keys.ts';
import { heapKeptMb } from '../support/memory.ts';
import { startUpstream, type FakeUpstream } from '../support/upstream.ts';

/*
 * What Freeway keeps after a request (a rate-limit window for 5 minutes, a health
 * record for an hour) must hold nothing else of that request. A short string cut
 * out of a long one can keep the long one alive, so each case sends large text
 * around a small kept part and measures the heap after full collections.
 */
describe('what Freeway keeps holds nothing else of the request', function () {
  this.timeout(30_000);
  let freeway: RunningFreeway | undefined;
  let upstream: FakeUpstream | undefined;

  afterEach(async () => {
    await freeway?.close();
    await upstream?.close();
    freeway = upstream = undefined;
  });

  it('a client address at the end of a 14 KB X-Forwarded-For header: 2,000 clients keep under 8 MB, not the 28 MB of their headers', async () => {
    freeway = await startFreeway({ env: { RATE_LIMIT_MAX: '1' } });
    const url = `${freeway.url}/v1/nope`;
    const pad = 'f'.repeat(14_000);
    // 14-character public addresses: 11.100.100.100, 11.100.100.101, ...
    const address = (i: number): string => `11.${100 + Math.floor(i / 10_000)}.${100 + (Math.floor(i / 100) % 100)}.${100 + (i % 100)}`;
    // Warmed up first, so that what is measured is what each client leaves behind.
    await (await fetch(url, { headers: { 'x-forwarded-for': `${pad}, 192.0.2.1` } })).arrayBuffer();
    const before = heapKeptMb();
    for (let i = 0; i < 2_000; i += 25) {
      const statuses = await Promise.all(
        Array.from({ length: 25 }, async (_, j) => {
          const response = await fetch(url, { headers: { 'x-forwarded-for': `${pad}${i + j}, ${address(i + j)}` } });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      expect(statuses.every((status) => status === 404)).to.equal(true);
    }
    // The lines the test itself keeps of Freeway's log (each 404's with its reason) are not Freeway's memory.
    freeway.logs.length = 0;
    const kept = heapKeptMb() - before;
    expect(kept, `${kept.toFixed(1)} MB kept`).to.be.below(8);
    // The windows are kept: each address was counted as its own client.
    const again = await fetch(url, { headers: { 'x-forwarded-for': address(7) } });
    await expectError(again, 429, 'rate_limit_error');
  });

  it('a 1 MB upstream error message: health records of 30 keys keep under 8 MB, not 30 MB, and still give the reason', async () => {
    upstream = await startUpstream();
    upstream.handle(faults.hugeErrorBody(1));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url } });
    const sample = testKeys.groq as string;
    const key = (i: number): string => `${sample.slice(0, -4)}${String(i).padStart(4, '0')}`;
    // Warmed up first (the provider's SDK loads on first use), so that what is measured is what each key leaves behind.
    expect((await postChat(freeway.url, hello('free:auto'), { [headerFor('groq')]: key(9_999) })).status).to.equal(502);
    const before = heapKeptMb();
    let last = '';
    for (let i = 0; i < 30; i++) {
      const response = await postChat(freeway.url, hello('free:auto'), { [headerFor('groq')]: key(i) });
      expect(response.status).to.equal(502);
      last = response.json.error.message;
    }
    const kept = heapKeptMb() - before;
    expect(kept, `${kept.toFixed(1)} MB kept`).to.be.below(8);
    // The reason is still told, cut to 300 characters.
    expect(last).to.match(/^All providers failed: groq: 500 x{295}…$/);
    const health = await getHealth(freeway.url, { [headerFor('groq')]: key(29) });
    expect(health.providers.groq).to.include({ state: 'healthy', consecutiveFailures: 1 });
  });
});
