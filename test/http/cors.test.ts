import { expect } from 'chai';
import OpenAI from 'openai';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders } from '../support/keys.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

const plugins = await providerPlugins();
const keyHeaderNames = plugins.map((plugin) => plugin.header);

/** A header's comma-separated list, lower-cased. */
function list(value: string | null): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
}

function preflight(fw: RunningFreeway, origin: string, requestHeaders: readonly string[], path = '/v1/chat/completions'): Promise<Response> {
  return fetch(`${fw.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': requestHeaders.join(', ').toLowerCase(),
    },
  });
}

describe('CORS', () => {
  it('has one key header to allow per discovered provider', () => {
    expect(keyHeaderNames).to.have.length(plugins.length);
    expect(new Set(keyHeaderNames.map((name) => name.toLowerCase())).size).to.equal(plugins.length);
  });

  describe('default origins (*)', () => {
    let upstream: FakeUpstream;
    let freeway: RunningFreeway;

    before(async () => {
      upstream = await startUpstream((req, res) => openAIText(res, 'Hello there', req));
      freeway = await startFreeway({ env: { CEREBRAS_BASE_URL: upstream.url } });
    });

    after(async () => {
      await freeway.close();
      await upstream.close();
    });

    it("a preflight for POST /v1/chat/completions with every provider's key header and Retry-After is allowed", async () => {
      const requested = ['Content-Type', 'Authorization', 'Retry-After', ...keyHeaderNames];
      const response = await preflight(freeway, 'https://app.example', requested);
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(list(response.headers.get('access-control-allow-methods'))).to.include('post');
      const allowed = list(response.headers.get('access-control-allow-headers'));
      for (const header of requested) expect(allowed, header).to.include(header.toLowerCase());
      expect(response.headers.get('access-control-max-age')).to.match(/^\d+$/);
      expect(await response.text()).to.equal('');
    });

    it('a browser using the official openai SDK passes the preflight for every header the SDK sends', async () => {
      // Record what the SDK really sends, for a plain call and for its stream helper.
      const sent: Headers[] = [];
      const openai = new OpenAI({
        baseURL: `${freeway.url}/v1`,
        apiKey: 'unused',
        defaultHeaders: keyHeaders('cerebras'),
        maxRetries: 0,
        fetch: (url, init) => {
          sent.push(new Headers(init?.headers));
          return fetch(url, init);
        },
      });
      await openai.chat.completions.create({ model: 'cerebras/llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }] }, { timeout: 5000 });
      await openai.chat.completions.stream({ model: 'cerebras/llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
      // A browser preflights every header that is not CORS-safelisted; it sets User-Agent itself (the SDK does not in a browser).
      const safelisted = new Set(['accept', 'accept-language', 'content-language', 'user-agent', 'content-length']);
      const requested = [...new Set(sent.flatMap((headers) => [...headers.keys()]))].filter((name) => !safelisted.has(name)).sort();
      expect(requested).to.include.members([
        'authorization',
        'content-type',
        'x-cerebras-key',
        'x-stainless-lang',
        'x-stainless-package-version',
        'x-stainless-os',
        'x-stainless-arch',
        'x-stainless-runtime',
        'x-stainless-runtime-version',
        'x-stainless-retry-count',
        'x-stainless-timeout',
        'x-stainless-helper-method',
      ]);

      const response = await preflight(freeway, 'https://app.example', requested);
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(list(response.headers.get('access-control-allow-methods'))).to.include('post');
      expect(list(response.headers.get('access-control-allow-headers'))).to.include.members(requested);
      // The answer depends on what was asked, so caches must key on it.
      expect(list(response.headers.get('vary'))).to.include('access-control-request-headers');
      expect(response.headers.get('access-control-allow-credentials')).to.equal(null);
    });

    it('a preflight for GET /v1/models is allowed too', async () => {
      const response = await fetch(`${freeway.url}/v1/models`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-groq-key' },
      });
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(list(response.headers.get('access-control-allow-methods'))).to.include('get');
    });

    it('exposes Retry-After and the X-Freeway-* headers on actual responses', async () => {
      const response = await fetch(`${freeway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { Origin: 'https://app.example', 'content-type': 'application/json', ...keyHeaders('cerebras') },
        body: JSON.stringify({ model: 'cerebras/llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).to.equal(200);
      await response.json();
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      const exposed = list(response.headers.get('access-control-expose-headers'));
      for (const header of ['retry-after', 'age', 'x-freeway-cache']) expect(exposed, header).to.include(header);
      for (const header of ['x-freeway-provider', 'x-freeway-model', 'x-freeway-attempts']) {
        expect(exposed, header).to.include(header);
        if (header.startsWith('x-freeway')) expect(response.headers.get(header), header).to.be.a('string').and.not.equal('');
      }
      // Sent only by an answer that waited for a window, and readable by a browser then.
      expect(exposed).to.include('x-freeway-waited');
    });

    it('a call without an Origin (an SDK, an agent, curl) gets no CORS headers; a GET says it varies by Origin', async () => {
      const posted = await fetch(`${freeway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...keyHeaders('cerebras') },
        body: JSON.stringify({ model: 'cerebras/llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(posted.status).to.equal(200);
      await posted.json();
      expect(posted.headers.get('access-control-allow-origin')).to.equal(null);
      expect(posted.headers.get('access-control-expose-headers')).to.equal(null);
      const listed = await fetch(`${freeway.url}/v1/models`);
      expect(listed.status).to.equal(200);
      await listed.json();
      expect(listed.headers.get('access-control-allow-origin')).to.equal(null);
      expect(list(listed.headers.get('vary'))).to.include('origin');
      const fromBrowser = await fetch(`${freeway.url}/v1/models`, { headers: { Origin: 'https://app.example' } });
      await fromBrowser.json();
      expect(fromBrowser.headers.get('access-control-allow-origin')).to.equal('*');
    });

    it('error responses carry CORS headers, so a browser can read them', async () => {
      const response = await fetch(`${freeway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { Origin: 'https://app.example', 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(response.status).to.equal(400);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(list(response.headers.get('access-control-expose-headers'))).to.include('retry-after');
    });
  });

  it('preflights are answered before the rate limit, and a 429 is readable cross-origin with its Retry-After', async () => {
    const freeway = await startFreeway({ env: { RATE_LIMIT_MAX: '1' } });
    try {
      for (let i = 0; i < 3; i++) expect((await preflight(freeway, 'https://app.example', ['X-Groq-Key'])).status).to.equal(204);
      const first = await fetch(`${freeway.url}/v1/models`, { headers: { Origin: 'https://app.example' } });
      await first.arrayBuffer();
      expect(first.status).to.equal(200);
      const limited = await fetch(`${freeway.url}/v1/models`, { headers: { Origin: 'https://app.example' } });
      await limited.arrayBuffer();
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      expect(limited.headers.get('access-control-allow-origin')).to.equal('*');
      expect(list(limited.headers.get('access-control-expose-headers'))).to.include('retry-after');
    } finally {
      await freeway.close();
    }
  });

  describe('CORS_ORIGINS list', () => {
    let freeway: RunningFreeway;

    before(async () => {
      freeway = await startFreeway({ env: { CORS_ORIGINS: 'https://a.example, https://b.example' } });
    });

    after(async () => {
      await freeway.close();
    });

    for (const origin of ['https://a.example', 'https://b.example']) {
      it(`allows ${origin}`, async () => {
        const pre = await preflight(freeway, origin, ['Content-Type', ...keyHeaderNames]);
        expect(pre.status).to.equal(204);
        expect(pre.headers.get('access-control-allow-origin')).to.equal(origin);
        expect(list(pre.headers.get('vary'))).to.include('origin');
        const actual = await fetch(`${freeway.url}/v1/models`, { headers: { Origin: origin } });
        expect(actual.status).to.equal(200);
        await actual.arrayBuffer();
        expect(actual.headers.get('access-control-allow-origin')).to.equal(origin);
        expect(list(actual.headers.get('access-control-expose-headers'))).to.include.members(['retry-after', 'x-freeway-provider']);
      });
    }

    for (const origin of ['https://c.example', 'https://a.example.evil.test', 'http://a.example']) {
      it(`does not allow ${origin}`, async () => {
        const pre = await preflight(freeway, origin, ['Content-Type', 'X-Groq-Key']);
        expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
        const actual = await fetch(`${freeway.url}/v1/models`, { headers: { Origin: origin } });
        await actual.arrayBuffer();
        expect(actual.headers.get('access-control-allow-origin')).to.equal(null);
      });
    }
  });
});
