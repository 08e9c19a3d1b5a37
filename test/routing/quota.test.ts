/**
 * Quota headers on successful answers, read by each plugin's `readQuota`, with
 * the header examples the providers' own documentation gives.
 */
import { expect } from 'chai';
import { parseDuration, parseReset, readQuotaHeaders } from '../../providers/quota.ts';
import { nextMidnight, nextUtcMidnight, retryHintAt } from '../../providers/resets.ts';
import { FIXTURE_NOW } from '../../providers/types.ts';
import { providerPlugins } from '../support/freeway.ts';

const plugins = await providerPlugins();
const plugin = (id: string) => {
  const found = plugins.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no plugin ${id}`);
  return found;
};
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('quota headers', () => {
  describe('parseDuration', () => {
    const cases: Array<[string, number]> = [
      ['2m59.56s', 179_560],
      ['7.66s', 7660],
      ['1h30m', 5_400_000],
      ['450ms', 450],
      ['6m0s', 360_000],
      ['1h2m3.5s', 3_723_500],
      ['12', 12_000],
      ['33011.382867097855', 33_011_382.867097855],
    ];
    for (const [text, ms] of cases) {
      it(`${text} -> ${ms} ms`, () => {
        expect(parseDuration(text)).to.be.closeTo(ms, 0.001);
      });
    }
    for (const text of ['', 'soon', '5 minutes', '1x', '-3s', 'm', '2m59.56']) {
      it(`'${text}' is unreadable`, () => {
        expect(parseDuration(text)).to.equal(undefined);
      });
    }
  });

  describe('parseReset', () => {
    it('a duration is counted from now', () => {
      expect(parseReset('7.66s', 'duration', NOW)).to.equal(NOW + 7660);
    });
    it('epoch milliseconds and seconds are the moment itself', () => {
      expect(parseReset('1741305600000', 'epoch-ms', NOW)).to.equal(1_741_305_600_000);
      expect(parseReset('1741305600', 'epoch-s', NOW)).to.equal(1_741_305_600_000);
    });
    it('garbage and absent values give nothing', () => {
      expect(parseReset(undefined, 'duration', NOW)).to.equal(undefined);
      expect(parseReset('tomorrow', 'epoch-ms', NOW)).to.equal(undefined);
    });
  });

  it('several windows report each budget by its scarcest window', () => {
    const snapshot = readQuotaHeaders(
      { 'a-left': '10', 'a-reset': '30', 'b-left': '0', 'b-reset': '3600' },
      NOW,
      [
        { remainingRequests: 'a-left', requestsReset: 'a-reset', resetFormat: 'duration' },
        { remainingRequests: 'b-left', requestsReset: 'b-reset', resetFormat: 'duration' },
      ],
    );
    expect(snapshot).to.deep.equal({ remainingRequests: 0, requestsResetAt: NOW + 3_600_000 });
  });

  it('groq: the example of console.groq.com/docs/rate-limits', () => {
    const headers = {
      'retry-after': '2',
      'x-ratelimit-limit-requests': '14400',
      'x-ratelimit-limit-tokens': '18000',
      'x-ratelimit-remaining-requests': '14370',
      'x-ratelimit-remaining-tokens': '17997',
      'x-ratelimit-reset-requests': '2m59.56s',
      'x-ratelimit-reset-tokens': '7.66s',
    };
    expect(plugin('groq').readQuota?.(headers, NOW)).to.deep.equal({
      remainingRequests: 14370,
      remainingTokens: 17997,
      limitTokens: 18000,
      requestsResetAt: NOW + 179_560,
      tokensResetAt: NOW + 7660,
    });
  });

  it('cerebras: the example of inference-docs.cerebras.ai/support/rate-limits', () => {
    const headers = {
      'x-ratelimit-limit-requests-day': '1000000000',
      'x-ratelimit-limit-tokens-minute': '1000000000',
      'x-ratelimit-remaining-requests-day': '999997455',
      'x-ratelimit-remaining-tokens-minute': '999998298',
      'x-ratelimit-reset-requests-day': '33011.382867097855',
      'x-ratelimit-reset-tokens-minute': '11.382867097854614',
    };
    expect(plugin('cerebras').readQuota?.(headers, NOW)).to.deep.equal({
      remainingRequests: 999997455,
      remainingTokens: 999998298,
      limitTokens: 1000000000,
      requestsResetAt: NOW + 33_011_383,
      tokensResetAt: NOW + 11_383,
    });
  });

  it('openrouter: X-RateLimit-Remaining and an X-RateLimit-Reset in epoch ms', () => {
    const headers = { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1741305600000' };
    expect(plugin('openrouter').readQuota?.(headers, NOW)).to.deep.equal({ remainingRequests: 0, requestsResetAt: 1_741_305_600_000 });
  });

  it('together: x-ratelimit-remaining and x-ratelimit-reset (time until the reset)', () => {
    const headers = { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '1' };
    expect(plugin('together').readQuota?.(headers, NOW)).to.deep.equal({ remainingRequests: 9, requestsResetAt: NOW + 1000 });
  });

  it('sambanova: the per-day window counts when it is the scarcer', () => {
    const headers = {
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '41',
      'x-ratelimit-limit-requests-day': '20',
      'x-ratelimit-remaining-requests-day': '0',
      'x-ratelimit-reset-requests-day': '4h17m',
    };
    expect(plugin('sambanova').readQuota?.(headers, NOW)).to.deep.equal({ remainingRequests: 0, requestsResetAt: NOW + (4 * 60 + 17) * 60_000 });
  });

  it('mistral: the per-minute remaining requests and tokens it sends (no reset is sent)', () => {
    // As Mistral sends them, quoted in mistralai/client-ts#169.
    const headers = {
      'x-ratelimit-limit-tokens-minute': '5000000',
      'x-ratelimit-remaining-tokens-minute': '4999911',
      'x-ratelimit-tokens-query-cost': '52',
      'x-ratelimit-limit-req-minute': '720',
      'x-ratelimit-remaining-req-minute': '717',
    };
    expect(plugin('mistral').readQuota?.(headers, NOW)).to.deep.equal({ remainingRequests: 717, remainingTokens: 4999911 });
  });

  for (const each of plugins) {
    it(`${each.id}: an answer without rate-limit headers reports nothing`, () => {
      const headers = { 'content-type': 'text/event-stream', date: 'Mon, 23 Nov 2026 12:00:00 GMT' };
      expect(each.readQuota?.(headers, NOW)).to.equal(undefined);
    });
  }
});

describe('daily resets', () => {
  it('midnight Pacific: 8:00 UTC in winter, 7:00 UTC in summer', () => {
    expect(nextMidnight('America/Los_Angeles', FIXTURE_NOW)).to.equal(Date.UTC(2026, 0, 16, 8));
    expect(nextMidnight('America/Los_Angeles', Date.UTC(2026, 6, 1, 20))).to.equal(Date.UTC(2026, 6, 2, 7));
  });

  it('midnight Pacific across the night the clocks go forward (8 March 2026)', () => {
    // 23:30 PST on 7 March -> midnight PST; 05:00 PDT on 8 March -> midnight PDT.
    expect(nextMidnight('America/Los_Angeles', Date.UTC(2026, 2, 8, 7, 30))).to.equal(Date.UTC(2026, 2, 8, 8));
    expect(nextMidnight('America/Los_Angeles', Date.UTC(2026, 2, 8, 12))).to.equal(Date.UTC(2026, 2, 9, 7));
  });

  it('00:00 UTC', () => {
    expect(nextUtcMidnight(FIXTURE_NOW)).to.equal(Date.UTC(2026, 0, 16));
    expect(nextUtcMidnight(Date.UTC(2026, 0, 16))).to.equal(Date.UTC(2026, 0, 17));
  });

  it('a "try again in" hint in a body, in Groq\'s duration format', () => {
    expect(retryHintAt('... Please try again in 9m38.016s. Need more tokens?', NOW)).to.equal(NOW + 578_016);
    expect(retryHintAt('Please retry in 20.04466179s.', NOW)).to.equal(NOW + 20_045);
    expect(retryHintAt('Rate limit reached.', NOW)).to.equal(undefined);
  });
});
