import { expect } from 'chai';
import { getHeapSpaceStatistics } from 'node:v8';
import { createRedactor, REDACTED, sanitizeForLog, type Redactor } from '../../server/core/redact.ts';
import { providerPlugins } from '../support/freeway.ts';
import { testKeys } from '../support/keys.ts';
import { heapKeptMb } from '../support/memory.ts';

describe('createRedactor', () => {
  let redact: Redactor;

  before(async () => {
    redact = createRedactor(await providerPlugins());
  });

  it('REDACTED is the literal text [REDACTED]', () => {
    expect(REDACTED).to.equal('[REDACTED]');
  });

  describe('each documented key format is replaced as a whole', () => {
    const samples: ReadonlyArray<readonly [string, readonly string[]]> = [
      ['gsk_', ['gsk_abcDEF0123456789', 'gsk_abc-DEF_0123456789', 'gsk_a_b_c-d-e']],
      ['sk-or-', ['sk-or-v1-0123456789abcdef0123456789abcdef', 'sk-or-v1-ab_cd-EF_gh', 'sk-or-abcdef']],
      ['AIza', ['AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW', 'AIzaSy-abc_DEF-0123', 'AIza_x']],
      ['nvapi-', ['nvapi-abcDEF0123456789', 'nvapi-ab_cd-EF_gh-0123', 'nvapi-_-x']],
      ['CF', ['CFabcdefgh0123', 'CFtoken-ab_cd-EF0123', 'CF_0123456789-x']],
      ['ghp_', ['ghp_abcDEF0123456789abcdef0123456789abcd', 'ghp_abc_DEF-0123', 'ghp_a-b']],
      ['github_pat_', ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123', 'github_pat_11AB-cd_EF', 'github_pat_x']],
      // Hugging Face has no plugin, yet its tokens reach upstream messages: "403 token hf_... has no access".
      ['hf_', ['hf_kHADqLmPzXcVbNtYrEwQaSdFgHjKlZxCvBn', 'hf_0123456789abcdef']],
    ];
    for (const [prefix, keys] of samples) {
      for (const key of keys) {
        it(`${prefix}: ${key}`, () => {
          expect(redact(key)).to.equal(REDACTED);
          expect(redact(`401 Invalid API key: ${key}. Check your settings.`)).to.equal(`401 Invalid API key: ${REDACTED}. Check your settings.`);
          expect(redact(`{"error":"bad key '${key}'","key":"${key}"}`)).to.equal(`{"error":"bad key '${REDACTED}'","key":"${REDACTED}"}`);
          expect(redact(`Bearer ${key}\n`)).to.equal(`Bearer ${REDACTED}\n`);
        });
      }
    }

    it('every pattern in one message, separated only by spaces, commas and colons', () => {
      const text = 'keys gsk_a1-b2 sk-or-v1-x_y,AIzaSy_1-2:nvapi-q_r CFabcdefgh_ij ghp_Z-9 github_pat_A_b-C.';
      expect(redact(text)).to.equal('keys [REDACTED] [REDACTED],[REDACTED]:[REDACTED] [REDACTED] [REDACTED] [REDACTED].');
    });

    it('an upstream message quoting a Hugging Face token keeps its words and loses the token', () => {
      expect(redact('the provider refused the key (403 token hf_kHADqLmPzXcVbNtYrEwQaSdFgHjKlZxCvBn has no access to this model)')).to.equal(
        'the provider refused the key (403 token [REDACTED] has no access to this model)',
      );
      // A model id with hf_ inside a word stays.
      expect(redact('meta-llama/Llama-3-8b-hf_quantized')).to.equal('meta-llama/Llama-3-8b-hf_quantized');
    });

    it('the provider formats the plugins add (csk-, fw_, tgp_v1_) too', () => {
      expect(redact('csk-abc0123456789 fw_abc0123456789 tgp_v1_abc-DEF_0123')).to.equal('[REDACTED] [REDACTED] [REDACTED]');
    });

    it('the sample key of every provider whose plugin knows its format', async () => {
      for (const plugin of await providerPlugins()) {
        // The part of a composite key (Cloudflare's account_id:api_token) that has a format.
        for (const part of (testKeys[plugin.id] as string).split(':')) {
          if (!plugin.keyPatterns.some((pattern) => new RegExp(`^(?:${pattern.source})`).test(part))) continue;
          expect(redact(`key=${part}`), plugin.id).to.equal(`key=${REDACTED}`);
        }
      }
      // Cloudflare's token half starts with CF in the sample.
      const [account, token] = (testKeys.cloudflare as string).split(':');
      expect(redact(`token ${token}`)).to.equal(`token ${REDACTED}`);
      // An account id has no format of its own: only the literal key removes it (below).
      expect(redact(`account ${account}`)).to.equal(`account ${account}`);
    });
  });

  it('leaves ordinary text alone', () => {
    for (const text of [
      'All providers failed: groq: 429 Rate limit reached; cerebras: 503 Service unavailable',
      'The CFO said CF is short for Cloudflare (CF-Ray abc)',
      'model gpt-oss-120b and sk-123 and ghp and AIza',
      '',
    ]) {
      expect(redact(text)).to.equal(text);
    }
  });

  describe('literal keys of the request', () => {
    it('removes keys no pattern knows', async () => {
      const formatless = (await providerPlugins()).filter((plugin) => plugin.keyPatterns.length === 0);
      expect(formatless.length, 'providers whose keys have no known format').to.be.greaterThan(0);
      for (const { id } of formatless) {
        const key = testKeys[id] as string;
        const text = `401 Incorrect API key provided: ${key}, see docs`;
        // Without the request's keys a key of no known format passes; with them, it does not.
        expect(redact(text), id).to.include(key);
        expect(redact(text, [key]), id).to.equal(`401 Incorrect API key provided: ${REDACTED}, see docs`);
      }
    });

    it('removes every occurrence, for every key of the request', () => {
      const keys = [testKeys.mistral as string, testKeys.cohere as string];
      const text = `${keys[0]} / ${keys[1]} / ${keys[0]}${keys[1]}`;
      // Two keys written together are one stretch of key text.
      expect(redact(text, keys)).to.equal(`${REDACTED} / ${REDACTED} / ${REDACTED}`);
    });

    it('removes each half of a composite account_id:api_token key on its own', () => {
      const key = testKeys.cloudflare as string;
      const [account, token] = key.split(':') as [string, string];
      expect(redact(`POST /accounts/${account}/ai/v1 with token ${token}`, [key])).to.equal(`POST /accounts/${REDACTED}/ai/v1 with token ${REDACTED}`);
      expect(redact(`key ${key}`, [key])).to.equal(`key ${REDACTED}`);
      const plain = 'acct9876543210:tokenWithoutAnyPrefix42';
      expect(redact(`account acct9876543210, token tokenWithoutAnyPrefix42`, [plain])).to.equal(`account ${REDACTED}, token ${REDACTED}`);
    });

    it('does not shred the message over a tiny key fragment (under 4 characters)', () => {
      expect(redact('a b abc', ['ab:abcdefgh'])).to.equal('a b abc');
      expect(redact('x abcdefgh y', ['ab:abcdefgh'])).to.equal(`x ${REDACTED} y`);
    });

    it('accepts any iterable of keys, such as a Map of the request keys', () => {
      const keys = new Map([['mistral', testKeys.mistral as string]]);
      expect(redact(`k=${testKeys.mistral}`, keys.values())).to.equal(`k=${REDACTED}`);
    });

    it('removes every run of 8 or more characters of a key, in any case: masked echoes', () => {
      const key = '7xW1RA4cMNeuoNZmQe5TbK2vFRWP';
      expect(redact('Incorrect API key provided: 7xW1RA4cMNeuoNZm********FRWP', [key])).to.equal(`Incorrect API key provided: ${REDACTED}********FRWP`);
      expect(redact('key ****4cMNeuoN****', [key])).to.equal(`key ****${REDACTED}****`);
      expect(redact('key 7XW1RA4CMNEUO...', [key])).to.equal(`key ${REDACTED}...`);
      // Two runs with text between them are two replacements.
      expect(redact('a 7xW1RA4c b Qe5TbK2vFRWP c', [key])).to.equal(`a ${REDACTED} b ${REDACTED} c`);
      // Seven characters are not a run.
      expect(redact('key 7xW1RA4 and FRWP', [key])).to.equal('key 7xW1RA4 and FRWP');
    });

    it('leaves text with no run of a key as it was', () => {
      const text = 'All providers failed: mistral: 401 Unauthorized; together: 429 Rate limit reached';
      expect(redact(text, [testKeys.mistral as string, testKeys.together as string])).to.equal(text);
    });

    it('compiles a KeySet once and gives the same answers for every message of the request', () => {
      const keys = new Map([['mistral', testKeys.mistral as string], ['cohere', testKeys.cohere as string]]);
      const mistral = testKeys.mistral as string;
      for (let i = 0; i < 3; i++) {
        expect(redact(`echo ${mistral.slice(2, 14)}`, keys)).to.equal(`echo ${REDACTED}`);
        expect(redact('nothing here', keys)).to.equal('nothing here');
      }
    });

    it('gives the same answers for a frozen list of keys, which it cannot mark as compiled', () => {
      const mistral = testKeys.mistral as string;
      const keys = Object.freeze([mistral]);
      for (let i = 0; i < 2; i++) expect(redact(`echo ${mistral.slice(2, 14)}`, keys)).to.equal(`echo ${REDACTED}`);
    });

    it("leaves nothing of a request's compiled keys to V8's old generation: 100,000 requests of one key each add under 8 MB to it", () => {
      // What a young collection moves to the old generation stays there until a full one: a flood of
      // requests whose keys' matchers outlive them grows the process by that much. Kept in a WeakMap,
      // whose entries young collections keep in some runs of V8 and not in others, they added 80 to
      // 90 MB here in about half the runs.
      const oldSpaceUsed = (): number => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;
      // Full collections first: whatever the redactor holds is in the old generation, as in a server that has run a while.
      heapKeptMb();
      let added = 0;
      let last = oldSpaceUsed();
      for (let i = 0; i < 100_000; i++) {
        const keys = new Map([['groq', [`gsk_${String(i).padStart(48, '0')}`]]]);
        expect(redact('Freeway serves no /v1/nope', keys)).to.equal('Freeway serves no /v1/nope');
        if (i % 100 === 99) {
          const now = oldSpaceUsed();
          // Growth only: a full collection in between lowers it.
          added += Math.max(0, now - last);
          last = now;
        }
      }
      expect(added / 2 ** 20, 'MB added to the old generation').to.be.below(8);
    });

    it('finds a key the pattern pass would only have cut short', () => {
      // A request key containing characters outside every pattern is still removed whole.
      const key = 'gsk_abc.def+ghi/jkl';
      expect(redact(`got ${key}!`, [key])).to.equal(`got ${REDACTED}!`);
    });
  });
});

describe('sanitizeForLog', () => {
  it('replaces every token of 8 or more letters, digits, - or _ with [REDACTED]', () => {
    expect(sanitizeForLog('abcdefgh')).to.equal(REDACTED);
    expect(sanitizeForLog('/v1/abcdefgh')).to.equal(`/v1/${REDACTED}`);
    expect(sanitizeForLog('/v1/ab-cd_ef')).to.equal(`/v1/${REDACTED}`);
    expect(sanitizeForLog('/v1/12345678')).to.equal(`/v1/${REDACTED}`);
    expect(sanitizeForLog('/x/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/y')).to.equal(`/x/${REDACTED}/y`);
  });

  it('keeps tokens of up to 7 characters', () => {
    expect(sanitizeForLog('/v1/abcdefg')).to.equal('/v1/abcdefg');
    expect(sanitizeForLog('/v2/foo/bar-baz')).to.equal('/v2/foo/bar-baz');
    expect(sanitizeForLog('/v1/models')).to.equal('/v1/models');
    expect(sanitizeForLog('GET /health 200 3ms')).to.equal('GET /health 200 3ms');
  });

  it('splits tokens at characters other than letters, digits, - and _', () => {
    expect(sanitizeForLog('/v1/chat/completions')).to.equal(`/v1/chat/${REDACTED}`);
    expect(sanitizeForLog('?key=abcdefgh1&page=2')).to.equal(`?key=${REDACTED}&page=2`);
    expect(sanitizeForLog('abcd.efgh abcd:efgh')).to.equal('abcd.efgh abcd:efgh');
  });

  it('removes every sample key, whatever its format', () => {
    for (const [id, key] of Object.entries(testKeys)) {
      const out = sanitizeForLog(`/v1/${key}?k=${key}`);
      expect(out, id).to.not.include(key);
      for (const part of key.split(/[:.]/)) expect(out, id).to.not.include(part);
      // Each part between `:` or `.` (Cloudflare's account_id:api_token, Z.AI's id.secret) is a token of its own.
      const redacted = key.replace(/[^:.]+/g, REDACTED);
      expect(out, id).to.equal(`/v1/${redacted}?k=${redacted}`);
    }
  });

  it('does not depend on a known key format', () => {
    expect(sanitizeForLog('unknown format Zq9Zq9Zq9 end')).to.equal(`unknown format ${REDACTED} end`);
  });
});
