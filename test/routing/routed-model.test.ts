import { expect } from 'chai';
import { APICallError, type LanguageModelV4, type LanguageModelV4CallOptions, type LanguageModelV4StreamPart, type LanguageModelV4Usage } from '@ai-sdk/provider';
import type { Alias, CatalogModel } from '../../catalog/catalog.ts';
import type { HealthStore } from '../../server/state/health-records.ts';
import { createKeyHasher } from '../../server/state/key-hash.ts';
import { createMemoryHealthStore } from '../../server/routing/health-policy.ts';
import { createLatencyTracker } from '../../server/routing/latency.ts';
import { routedModel, StreamFailed, type RoutedModel } from '../../server/routing/routed-model.ts';
import { cachedModels } from '../../server/routing/upstream.ts';
import type { FetchFunction, ModelFactoryOptions } from '../../providers/types.ts';
import type { AttemptLog } from '../../server/routing/attempt.ts';
import { createRouter } from '../../server/routing/router.ts';
import { testCatalog } from '../support/freeway.ts';

/**
 * The router's answer to a planned request is an AI SDK LanguageModelV4: these
 * drive it as the APIs do, with upstream models faked at the LanguageModelV4
 * seam (no HTTP), and check what the caller of `doStream` sees.
 */

const catalog = await testCatalog();
const auto = catalog.byId.get('free:auto') as Alias;
const keys = new Map([
  ['groq', ['gsk_routedmodel_key']],
  ['cerebras', ['csk-routedmodel-key']],
]);
const hashKey = createKeyHasher('test-secret-0123456789');
const IDLE_MS = 150;
/** Short enough for a test, long enough not to fire where they should not. */
const timeouts = { requestMs: 5_000, firstTokenMs: 1_000, streamIdleMs: IDLE_MS, streamMaxDurationMs: 5_000 };

type Behaviour = (options: LanguageModelV4CallOptions) => ReadableStream<LanguageModelV4StreamPart> | Promise<never>;

const upstreamUsage: LanguageModelV4Usage = {
  inputTokens: { total: 99, noCache: 99, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 99, text: 99, reasoning: undefined },
  raw: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
};
const finish: LanguageModelV4StreamPart = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: upstreamUsage };
const text = (delta: string): LanguageModelV4StreamPart => ({ type: 'text-delta', id: '0', delta });

/** An upstream stream of `parts`, then (unless `end` is false) its end; it errors with the abort reason when its call is aborted. */
function upstream(options: LanguageModelV4CallOptions, parts: readonly LanguageModelV4StreamPart[], end = true, cancelled?: () => void): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream({
    start(controller) {
      options.abortSignal?.addEventListener('abort', () => controller.error(options.abortSignal?.reason), { once: true });
      for (const part of parts) controller.enqueue(part);
      if (end) controller.close();
    },
    cancel: () => cancelled?.(),
  });
}

/** An upstream stream of `parts`, each after `gapMs` of silence but the first; it errors with the abort reason when its call is aborted. */
function paced(options: LanguageModelV4CallOptions, parts: readonly LanguageModelV4StreamPart[], gapMs: number): ReadableStream<LanguageModelV4StreamPart> {
  let next = 0;
  return new ReadableStream(
    {
      start(controller) {
        options.abortSignal?.addEventListener('abort', () => controller.error(options.abortSignal?.reason), { once: true });
      },
      async pull(controller) {
        if (next > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
        const part = parts[next++];
        if (part === undefined) controller.close();
        else controller.enqueue(part);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Always answers: the fake models call it first, so that their calls count as sent (what they throw then is the provider's). */
const sent = async (): Promise<Response> => new Response(null, { status: 204 });

function fakeModel(behaviour: Behaviour, fetch: NonNullable<ModelFactoryOptions['fetch']>): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'fake',
    modelId: 'fake',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: async (options) => {
      await fetch('http://127.0.0.1/chat/completions', { method: 'POST', signal: options.abortSignal });
      return { stream: await behaviour(options) };
    },
  };
}

const serverError = (): Promise<never> =>
  Promise.reject(new APICallError({ message: 'Internal error, please retry', url: 'http://127.0.0.1/chat/completions', requestBodyValues: {}, statusCode: 500, responseBody: '{"error":{"message":"Internal error, please retry"}}' }));

interface Setup {
  readonly model: RoutedModel;
  readonly attempts: AttemptLog[];
  readonly health: HealthStore;
}

async function routed(byProvider: Record<string, Behaviour>, timing: Partial<typeof timeouts> = {}): Promise<Setup> {
  const health = createMemoryHealthStore();
  const router = createRouter({
    config: { routing: { maxAttempts: 5, strategy: 'priority', exploreShare: 0 }, timeouts: { ...timeouts, ...timing } },
    health,
    hashKey,
    latency: createLatencyTracker(),
    redact: (message) => message,
  });
  const plan = await router.plan({ entry: auto, keys: keys, needs: [] });
  const attempts: AttemptLog[] = [];
  const models = cachedModels(new Map(), sent as FetchFunction, 1_000_000, (entry: CatalogModel, options) => fakeModel(byProvider[entry.provider.id] ?? serverError, options.fetch as FetchFunction));
  return { model: routedModel(router, { plan, keys, models, extras: {}, attempts, maxResponseBytes: 1_000_000 }), attempts, health };
}

const call = (): LanguageModelV4CallOptions => ({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], abortSignal: new AbortController().signal });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function readAll(stream: ReadableStream<LanguageModelV4StreamPart>, pauseMs = 0): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
    if (pauseMs > 0) await sleep(pauseMs);
  }
}

const failureOf = async (promise: Promise<unknown>): Promise<StreamFailed> => {
  const error = await promise.then(() => undefined, (thrown: unknown) => thrown);
  expect(error).to.be.instanceOf(StreamFailed);
  return error as StreamFailed;
};

/** The key's health record as state and failures; undefined when nothing is recorded against it. */
const healthOf = async (health: HealthStore, provider: string): Promise<unknown> => {
  const [record] = await health.get([hashKey(provider, (keys.get(provider) as string[])[0] as string)]);
  return record && { state: record.state, consecutiveFailures: record.consecutiveFailures };
};

/** The record of a key whose answer is all health knows of it: healthy, no failure. */
const answered = { state: 'healthy', consecutiveFailures: 0 };

describe('the routed model (LanguageModelV4 over the plan)', () => {
  it('doStream resolves with the candidate that produced output; the failure before it is invisible but recorded', async () => {
    const { model, attempts, health } = await routed({ groq: serverError, cerebras: (options) => upstream(options, [{ type: 'stream-start', warnings: [] }, text('from cerebras'), finish]) });
    const result = await model.doStream(call());
    expect(result.candidate.model.provider.id).to.equal('cerebras');
    const parts = await readAll(result.stream);
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.delta)).to.deep.equal(['from cerebras']);
    expect(attempts.map((attempt) => `${attempt.provider} ${attempt.status}`)).to.deep.equal(['groq 500', 'cerebras 200']);
    expect(await healthOf(health, 'groq')).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
    expect(await healthOf(health, 'cerebras')).to.deep.equal(answered);
  });

  it('the finish part carries the usage the upstream reported, not the SDK\'s defaults', async () => {
    const { model } = await routed({ groq: (options) => upstream(options, [text('hi'), finish]) });
    const parts = await readAll((await model.doStream(call())).stream);
    const last = parts.at(-1) as Extract<LanguageModelV4StreamPart, { type: 'finish' }>;
    expect(last.type).to.equal('finish');
    expect(last.usage.inputTokens.total).to.equal(7);
    expect(last.usage.outputTokens.total).to.equal(2);
  });

  it('a stream that ends without a finish fails as StreamFailed, classified and recorded against the key', async () => {
    const { model, health } = await routed({ groq: (options) => upstream(options, [text('partial')]) });
    const failed = await failureOf(readAll((await model.doStream(call())).stream));
    expect(failed.failure?.kind).to.equal('bad_response');
    expect(failed.failure?.reason).to.equal('200 then bad stream: the upstream stream ended without a finish reason');
    expect(await healthOf(health, 'groq')).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
  });

  it('an error part after the first output fails as StreamFailed with what the upstream said', async () => {
    const { model, health } = await routed({ groq: (options) => upstream(options, [text('partial'), { type: 'error', error: { message: 'The model is overloaded.' } }]) });
    const failed = await failureOf(readAll((await model.doStream(call())).stream));
    expect([failed.failure?.kind, failed.failure?.reason]).to.deep.equal(['server', 'error event: The model is overloaded.']);
    expect(await healthOf(health, 'groq')).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
  });

  it('a reader slower than STREAM_IDLE_TIMEOUT_MS is not upstream silence: every part arrives and health is untouched', async () => {
    const { model, health } = await routed({ groq: (options) => upstream(options, [text('one '), text('two '), text('three'), finish]) });
    const parts = await readAll((await model.doStream(call())).stream, IDLE_MS * 2);
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.delta).join('')).to.equal('one two three');
    expect(await healthOf(health, 'groq')).to.deep.equal(answered);
  });

  it('an upstream silent while the reader waits is a timeout, recorded against the key', async () => {
    const { model, health } = await routed({ groq: (options) => upstream(options, [text('partial')], false) });
    const failed = await failureOf(readAll((await model.doStream(call())).stream));
    expect([failed.failure?.kind, failed.failure?.reason]).to.deep.equal(['timeout', 'timeout']);
    expect(await healthOf(health, 'groq')).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
  });

  describe('with FIRST_TOKEN_TIMEOUT_MS below STREAM_IDLE_TIMEOUT_MS', () => {
    const timing = { firstTokenMs: 100, streamIdleMs: 600 };

    it('parts further apart than the first-token timeout but within the idle timeout all arrive', async () => {
      const { model, health } = await routed({ groq: (options) => paced(options, [text('one '), text('two '), text('three'), finish], 250) }, timing);
      const parts = await readAll((await model.doStream(call())).stream);
      expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.delta).join('')).to.equal('one two three');
      expect(await healthOf(health, 'groq')).to.deep.equal(answered);
    });

    it('a stream silent after its first part is cut at the idle timeout, not at the first-token one', async () => {
      const { model, health } = await routed({ groq: (options) => upstream(options, [text('partial')], false) }, timing);
      const stream = (await model.doStream(call())).stream;
      const started = performance.now();
      const failed = await failureOf(readAll(stream));
      expect(performance.now() - started).to.be.at.least(timing.streamIdleMs - 100);
      expect([failed.failure?.kind, failed.failure?.reason]).to.deep.equal(['timeout', 'timeout']);
      expect(await healthOf(health, 'groq')).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
    });
  });

  it('streamParts reads the parts doStream streams; after a failure each read fails with the same StreamFailed', async () => {
    const { model } = await routed({ groq: (options) => upstream(options, [text('one '), text('two'), finish]) });
    const { parts, candidate } = await model.streamParts(call());
    expect(candidate.model.provider.id).to.equal('groq');
    const read: LanguageModelV4StreamPart[] = [];
    for (let result = await parts.read(); !result.done; result = await parts.read()) read.push(result.value);
    expect(read.filter((part) => part.type === 'text-delta').map((part) => part.delta).join('')).to.equal('one two');
    expect(read.at(-1)?.type).to.equal('finish');
    expect((await parts.read()).done).to.equal(true);

    const broken = await routed({ groq: (options) => upstream(options, [text('partial')]) });
    const failing = (await broken.model.streamParts(call())).parts;
    expect((await failing.read()).done).to.equal(false);
    const first = await failureOf(failing.read());
    expect(first.failure?.kind).to.equal('bad_response');
    expect(await failureOf(failing.read())).to.equal(first);
  });

  it('a reader that cancels ends the upstream stream and leaves health as it was', async () => {
    let cancelled = false;
    const { model, health } = await routed({ groq: (options) => upstream(options, [text('partial')], false, () => (cancelled = true)) });
    const reader = (await model.doStream(call())).stream.getReader();
    await reader.read();
    await reader.cancel();
    expect(cancelled).to.equal(true);
    await sleep(IDLE_MS * 2);
    expect(await healthOf(health, 'groq')).to.deep.equal(answered);
  });

  it('the caller going away mid-stream is no failure of the key', async () => {
    const { model, health } = await routed({ groq: (options) => upstream(options, [text('partial')], false) });
    const caller = new AbortController();
    const stream = (await model.doStream({ ...call(), abortSignal: caller.signal })).stream;
    const reading = readAll(stream);
    caller.abort();
    const failed = await failureOf(reading);
    expect(failed.failure?.kind).to.equal('aborted');
    expect(await healthOf(health, 'groq')).to.deep.equal(answered);
  });
});
