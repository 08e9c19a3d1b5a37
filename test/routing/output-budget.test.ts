/**
 * Output budgets above a model's maximum. Agents ask for as many output tokens as
 * their own models can write (Claude Code: up to 128,000); free-tier models take
 * fewer, and their upstreams refuse a larger `max_tokens` with a 400 that names the
 * maximum. The budget is an upper bound, so Freeway lowers it: the same key is tried
 * again at the stated maximum, and later requests go out lowered. The upstreams are
 * real HTTP servers on 127.0.0.1 playing Groq, driven by the official SDKs.
 */
import type { ServerResponse } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { APICallError } from '@ai-sdk/provider';
import { expect } from 'chai';
import OpenAI from 'openai';
import { createRedactor } from '../../server/core/redact.ts';
import { classifyFailure } from '../../server/routing/upstream-errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { providerFixtures, providerPlugins } from '../support/plugins.ts';
import { json, openAISSE, startUpstream, usage, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const plugins = await providerPlugins();
const fixtures = await providerFixtures();
const redact = createRedactor(plugins);

const GROQ_MAX = 32768;
/** free:tool-use's first Groq model, from the plugin's curated list (which changes with each review). */
const firstSpec = plugins.find((plugin) => plugin.id === 'groq')?.models.find((model) => !model.deprecated && model.capabilities.includes('tool-use'));
if (!firstSpec) throw new Error('providers/groq declares no current tool-use model');
const FIRST = firstSpec.id;
/** What Freeway first sends for a budget of 128000: the caller's, or the model's documented maximum if lower. */
const FIRST_SENT = Math.min(128000, firstSpec.maxOutputTokens ?? 128000);
if (FIRST_SENT <= GROQ_MAX) throw new Error(`groq/${FIRST} documents at most ${FIRST_SENT} output tokens; the fake upstream's ${GROQ_MAX} must be lower`);
/** FIRST inside a RegExp. */
const FIRST_RE = FIRST.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Groq's documented 400 for a budget above the model's maximum (providers/groq/fixtures.ts). */
const groqBudgetRow = fixtures.get('groq')?.errors.find((row) => row.kind === 'output_budget');
if (!groqBudgetRow) throw new Error('providers/groq/fixtures.ts has no output_budget row');

/**
 * The plugins as a Groq key on a paid plan meets them: without the free plan's per-request token
 * limit (8,000 tokens a minute), which would lower every budget here below the model's maximum.
 */
const withoutRequestLimits = plugins.map((plugin) =>
  plugin.id === 'groq' ? { ...plugin, models: plugin.models.map(({ maxRequestTokens: _limit, ...model }) => model) } : plugin,
);

/** The output budget an upstream call carried, whichever field the provider's SDK used. */
const budgetOf = (req: SeenRequest): unknown => req.body?.max_completion_tokens ?? req.body?.max_tokens;

/** An answer that ran out of budget: finish_reason `length`, as an OpenAI-compatible upstream says it. */
function cutShort(res: ServerResponse): void {
  openAISSE(res, [
    { choices: [{ index: 0, delta: { role: 'assistant', content: 'Here is the start' }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'length' }] },
    { choices: [], usage, x_groq: { usage } },
  ]);
}

/** Groq as it behaves: refuses a budget above the model's maximum, else answers. */
function groqWithMaximum(req: SeenRequest, res: ServerResponse): void {
  const budget = budgetOf(req);
  if (typeof budget === 'number' && budget > GROQ_MAX) json(res, 400, groqBudgetRow?.body);
  else cutShort(res);
}

describe('output budgets above the model maximum', function () {
  let groq: FakeUpstream;
  let freeway: RunningFreeway;

  before(async function () {
    groq = await startUpstream(groqWithMaximum);
  });
  after(() => groq.close());
  beforeEach(async function () {
    groq.requests.length = 0;
    groq.handle(groqWithMaximum);
    // A new Freeway each time: what it learned about a model's maximum starts empty.
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url }, plugins: withoutRequestLimits });
  });
  afterEach(() => freeway.close());

  it('@anthropic-ai/sdk with max_tokens 128000: Groq answers at its maximum, the key stays healthy, the next request goes out lowered', async function () {
    const anthropic = new Anthropic({ baseURL: freeway.url, apiKey: 'sk-ant-placeholder', defaultHeaders: keyHeaders('groq'), maxRetries: 0, timeout: 5000 });
    const ask = () =>
      anthropic.messages
        .stream({ model: 'free:tool-use', max_tokens: 128000, messages: [{ role: 'user', content: 'Write a long story' }] })
        .withResponse();

    const first = await ask();
    const message = await first.data.finalMessage();
    expect(message.content).to.deep.equal([{ type: 'text', text: 'Here is the start', citations: null }]);
    // The upstream's own finish reason: the answer was cut by the (lowered) budget.
    expect(message.stop_reason).to.equal('max_tokens');
    expect(first.response.headers.get('x-freeway-provider')).to.equal('groq');
    expect(first.response.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq/${FIRST_RE} 400 \\d+ms, groq/${FIRST_RE} 200 \\d+ms$`));
    expect(groq.requests.map((req) => [req.body?.model, budgetOf(req)])).to.deep.equal([
      [FIRST, FIRST_SENT],
      [FIRST, GROQ_MAX],
    ]);
    // The model's maximum is not the key's fault.
    expect((await getHealth(freeway.url, keyHeaders('groq'))).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });

    const second = await ask();
    expect((await second.data.finalMessage()).stop_reason).to.equal('max_tokens');
    expect(second.response.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq/${FIRST_RE} 200 \\d+ms$`));
    expect(groq.requests.slice(2).map(budgetOf), 'one upstream call, already lowered').to.deep.equal([GROQ_MAX]);
  });

  it('openai SDK chat completions with max_completion_tokens 128000: the same, finish_reason length as Groq said', async function () {
    const openai = new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'placeholder', defaultHeaders: keyHeaders('groq'), maxRetries: 0, timeout: 5000 });
    const ask = () =>
      openai.chat.completions
        .create({ model: 'free:tool-use', max_completion_tokens: 128000, messages: [{ role: 'user', content: 'Write a long story' }] })
        .withResponse();

    const first = await ask();
    expect(first.data.choices[0]?.message.content).to.equal('Here is the start');
    expect(first.data.choices[0]?.finish_reason).to.equal('length');
    expect(first.response.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq/${FIRST_RE} 400 \\d+ms, groq/${FIRST_RE} 200 \\d+ms$`));
    expect(groq.requests.map(budgetOf)).to.deep.equal([FIRST_SENT, GROQ_MAX]);
    expect((await getHealth(freeway.url, keyHeaders('groq'))).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });

    const second = await ask();
    expect(second.data.choices[0]?.finish_reason).to.equal('length');
    expect(second.response.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq/${FIRST_RE} 200 \\d+ms$`));
    expect(groq.requests.slice(2).map(budgetOf)).to.deep.equal([GROQ_MAX]);
  });

  it('openai SDK Responses with max_output_tokens 128000: incomplete for max_output_tokens, the budget echoed as sent', async function () {
    const openai = new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'placeholder', defaultHeaders: keyHeaders('groq'), maxRetries: 0, timeout: 5000 });
    const { data, response } = await openai.responses.create({ model: 'free:tool-use', input: 'Write a long story', max_output_tokens: 128000 }).withResponse();
    expect(data.status).to.equal('incomplete');
    expect(data.incomplete_details).to.deep.equal({ reason: 'max_output_tokens' });
    expect(data.output_text).to.equal('Here is the start');
    expect(data.max_output_tokens).to.equal(128000);
    expect(response.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq/${FIRST_RE} 400 \\d+ms, groq/${FIRST_RE} 200 \\d+ms$`));
    expect(groq.requests.map(budgetOf)).to.deep.equal([FIRST_SENT, GROQ_MAX]);
  });

  it('a budget within the maximum goes out as the caller sent it', async function () {
    const openai = new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'placeholder', defaultHeaders: keyHeaders('groq'), maxRetries: 0, timeout: 5000 });
    await openai.chat.completions.create({ model: 'free:tool-use', max_tokens: 128000, messages: [{ role: 'user', content: 'Hi' }] });
    await openai.chat.completions.create({ model: 'free:tool-use', max_tokens: 1000, messages: [{ role: 'user', content: 'Hi' }] });
    expect(groq.requests.map(budgetOf)).to.deep.equal([FIRST_SENT, GROQ_MAX, 1000]);
  });

  it('a budget 400 that names no maximum moves on to the next model, not a 400 to the caller', async function () {
    // vLLM's wording (OpenAI-compatible servers built on it), quoted in claude-code-best/claude-code#272:
    // it names the context window and the input, not the model's output maximum.
    const vllm =
      "'max_tokens' or 'max_completion_tokens' is too large: 128000. This model's maximum context length is 131072 tokens and your request has 24235 input tokens (128000 > 131072 - 24235). None";
    groq.handle((req, res) => {
      if (req.body?.model === FIRST) json(res, 400, { error: { message: vllm, type: 'BadRequestError', param: null, code: 400 } });
      else cutShort(res);
    });
    const openai = new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'placeholder', defaultHeaders: keyHeaders('groq'), maxRetries: 0, timeout: 5000 });
    const { data, response } = await openai.chat.completions
      .create({ model: 'free:tool-use', max_tokens: 128000, messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).to.equal('Here is the start');
    expect(response.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq/${FIRST_RE} 400 \\d+ms, groq/(?!${FIRST_RE})\\S+ 200 \\d+ms$`));
    // The next model gets the caller's budget, within its own documented maximum.
    const next = plugins.find((plugin) => plugin.id === 'groq')?.models.filter((model) => !model.deprecated && model.capabilities.includes('tool-use'))[1];
    const nextSent = Math.min(128000, next?.maxOutputTokens ?? 128000);
    expect(groq.requests.map(budgetOf), 'nothing to lower to: the next model gets the budget as sent').to.deep.equal([FIRST_SENT, nextSent]);
    expect((await getHealth(freeway.url, keyHeaders('groq'))).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
  });

  it('a pinned model whose upstream refuses the lowered budget too: a 400 to the caller, after one retry', async function () {
    groq.handle((_req, res) => json(res, 400, groqBudgetRow?.body));
    const openai = new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'placeholder', defaultHeaders: keyHeaders('groq'), maxRetries: 0, timeout: 5000 });
    const error = await openai.chat.completions
      .create({ model: `groq/${FIRST}`, max_tokens: 128000, messages: [{ role: 'user', content: 'Hi' }] })
      .then(() => undefined, (caught: unknown) => caught);
    expect(error).to.be.instanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.status).to.equal(400);
    expect(bad.type).to.equal('invalid_request_error');
    expect(bad.message).to.include('groq rejected the request: 400 `max_tokens` must be less than or equal to `32768`');
    expect(groq.requests.map(budgetOf)).to.deep.equal([FIRST_SENT, GROQ_MAX]);
  });
});

describe('reading a refused output budget (generic classification)', function () {
  const cases: ReadonlyArray<readonly [string, number | undefined]> = [
    // OpenAI's wording, which OpenAI-compatible servers copy.
    ['max_tokens is too large: 20480. This model supports at most 16384 completion tokens, whereas you provided 20480.', 16384],
    // An OpenAI-compatible gateway's InvalidParameter answer, quoted in Gitlawb/openclaude#331.
    ['The parameter `max_completion_tokens` specified in the request are not valid: integer above maximum value, expected a value <= 12288, but got 32000 instead.', 12288],
    // Gemini on Vertex AI.
    ['Unable to submit request because it has a maxOutputTokens value of 128000 but the supported range is from 1 (inclusive) to 65537 (exclusive). Update the value and try again.', 65536],
    // A range check.
    ['max_tokens must be between 1 and 4096', 4096],
    // vLLM: no output maximum stated.
    ["'max_tokens' or 'max_completion_tokens' is too large: 64000. This model's maximum context length is 64001 tokens and your request has 24235 input tokens (64000 > 64001 - 24235).", undefined],
  ];
  for (const [message, limit] of cases) {
    it(`${message.slice(0, 60)}... -> output_budget${limit === undefined ? ' without a maximum' : `, maximum ${limit}`}`, function () {
      const body = JSON.stringify({ error: { message, type: 'invalid_request_error' } });
      const error = new APICallError({ message, url: 'https://upstream.example/v1/chat/completions', requestBodyValues: {}, statusCode: 400, responseBody: body });
      const failure = classifyFailure(error, { redact, keys: [] });
      expect(failure.kind).to.equal('output_budget');
      expect(failure.maxOutputTokens).to.equal(limit);
    });
  }

  it('a context-length 400 stays a context-length 400', function () {
    const message = "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (1000 in the messages, 8000 in the completion).";
    const error = new APICallError({ message, url: 'https://upstream.example/v1/chat/completions', requestBodyValues: {}, statusCode: 400, responseBody: message });
    expect(classifyFailure(error, { redact, keys: [] }).kind).to.equal('context_too_long');
  });
});
