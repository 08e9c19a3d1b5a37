import { expect } from 'chai';
import type { CatalogModel } from '../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { exhausted, failureReason, nextStep, noFailures, noteFailure, outcomeOf, outputCap, type PlanSummary } from '../../server/routing/failover.ts';
import type { Failure, FailureKind } from '../../server/routing/upstream-errors.ts';

/**
 * The fast tier of failover: what each kind of failure does to the key's health,
 * what the request tries next, and what the caller is told. Pure functions, no server.
 */

const NO_CREDIT_WAIT_MS = 86_400_000;
const plugin = { id: 'alpha', header: 'X-Alpha-Key' } as unknown as ProviderPlugin;
const model = { id: 'alpha/a-large', provider: plugin, spec: { id: 'a-large', capabilities: [], contextWindow: 8192, maxOutputTokens: 4096 } } as unknown as CatalogModel;
const unlimited = { ...model, spec: { ...model.spec, maxOutputTokens: undefined } } as CatalogModel;

const failure = (kind: FailureKind, reason: string, extra: Partial<Failure> = {}): Failure => ({ kind, status: undefined, label: kind, reason, retryAfterMs: undefined, ...extra });

describe('failover policy (golden, no server)', () => {
  // kind, reason -> what is recorded against the key, the next step, the caller's reason (single key, then key 2 of 3)
  const table: Array<[FailureKind, string, ReturnType<typeof outcomeOf>, string, string, string]> = [
    ['rate_limited', '429 Rate limit reached', { kind: 'rate_limited', retryAfterMs: 30_000, reason: '429 Rate limit reached' }, 'next key', '429 Rate limit reached', '429 Rate limit reached'],
    ['invalid_key', '401 Invalid API Key', { kind: 'invalid_key', reason: '401 Invalid API Key' }, 'next key', 'the provider refused the key (401 Invalid API Key): fix X-Alpha-Key', 'the provider refused the key (401 Invalid API Key): fix key 2 of X-Alpha-Key'],
    ['no_credit', '402 Payment Required', { kind: 'no_credit', reason: '402 Payment Required', waitMs: NO_CREDIT_WAIT_MS }, 'next key', 'the provider refused the key: it has no credit left (402 Payment Required): add credit or fix X-Alpha-Key', 'the provider refused the key: it has no credit left (402 Payment Required): add credit or fix key 2 of X-Alpha-Key'],
    ['server', '500 Internal error', { kind: 'failure', reason: '500 Internal error' }, 'next provider', '500 Internal error', '500 Internal error'],
    ['bad_response', '200 then bad stream: x', { kind: 'failure', reason: '200 then bad stream: x' }, 'next provider', '200 then bad stream: x', '200 then bad stream: x'],
    ['timeout', 'timeout', { kind: 'failure', reason: 'timeout' }, 'next provider', 'timeout', 'timeout'],
    ['connection', 'connection error', { kind: 'failure', reason: 'connection error' }, 'next provider', 'connection error', 'connection error'],
    ['unsupported', 'cannot take this request: audio', undefined, 'next provider', 'cannot take this request: audio', 'cannot take this request: audio'],
    ['model_unavailable', '404 model not found', undefined, 'next model', '404 model not found', '404 model not found'],
    ['context_too_long', '400 maximum context length', undefined, 'next model', '400 maximum context length', '400 maximum context length'],
    ['output_budget', '400 max_tokens is too large', undefined, 'next model', '400 max_tokens is too large', '400 max_tokens is too large'],
    ['request', '400 messages: required', undefined, 'next model', '400 messages: required', '400 messages: required'],
    ['deadline', 'request timeout (REQUEST_TIMEOUT_MS, 1000 ms)', undefined, 'next model', 'request timeout (REQUEST_TIMEOUT_MS, 1000 ms)', 'request timeout (REQUEST_TIMEOUT_MS, 1000 ms)'],
    ['internal', 'internal error: x', undefined, 'next model', 'internal error: x', 'internal error: x'],
    ['aborted', 'aborted', undefined, 'next model', 'aborted', 'aborted'],
  ];
  for (const [kind, reason, outcome, step, single, pooled] of table) {
    it(`${kind}: ${outcome ? `records ${outcome.kind}` : 'records nothing against the key'}, then the ${step}`, () => {
      const failed = failure(kind, reason, kind === 'rate_limited' ? { retryAfterMs: 30_000 } : {});
      expect(outcomeOf(failed, NO_CREDIT_WAIT_MS)).to.deep.equal(outcome);
      expect(nextStep(kind)).to.equal(step);
      expect(failureReason(failed, model, 1, 1)).to.equal(single);
      expect(failureReason(failed, model, 2, 3)).to.equal(pooled);
    });
  }

  describe('the output budget sent', () => {
    const cases: Array<[string, CatalogModel, number | undefined, number | undefined, number | undefined]> = [
      ['no budget asked: none sent', model, undefined, undefined, undefined],
      ["under the model's maximum: the request's own", model, 1000, undefined, undefined],
      ["over the declared maximum: the model's", model, 10_000, undefined, 4096],
      ['a learned maximum lower than the declared one wins', model, 10_000, 2048, 2048],
      ['a learned maximum for a model that declares none', unlimited, 10_000, 8000, 8000],
      ['a learned maximum above the budget: the request\'s own', unlimited, 1000, 8000, undefined],
    ];
    for (const [name, which, budget, learned, sent] of cases) {
      it(name, () => expect(outputCap(which, budget, learned)).to.equal(sent));
    }
  });

  describe('when every candidate is spent', () => {
    const alias: PlanSummary = { target: 'free:auto', pinned: false, provider: 'alpha', skipped: [], retryAfterSeconds: undefined };
    const pinned: PlanSummary = { ...alias, target: 'alpha/a-large', pinned: true };

    it('an alias: a 502 naming every attempt and every skipped key, with the last Retry-After', () => {
      const failures = noFailures();
      noteFailure(failures, failure('rate_limited', '429 Rate limit reached', { retryAfterMs: 7_500 }), model, 1, 2);
      noteFailure(failures, failure('server', '500 Internal error'), model, 2, 2);
      const error = exhausted({ ...alias, skipped: ['beta: down, retry after 12s'], retryAfterSeconds: 12 }, failures, 2);
      expect([error.status, error.type, error.message]).to.deep.equal([
        502,
        'freeway_all_providers_failed',
        'All providers failed: alpha key 1: 429 Rate limit reached; alpha key 2: 500 Internal error; beta: down, retry after 12s',
      ]);
      expect(error.headers).to.deep.equal({ 'Retry-After': '8' });
    });

    it('an alias with nothing tried: a 502 saying so, the plan\'s Retry-After', () => {
      const error = exhausted({ ...alias, retryAfterSeconds: 12 }, noFailures(), 0);
      expect([error.status, error.message, error.headers]).to.deep.equal([502, 'All providers failed: no candidate could be tried', { 'Retry-After': '12' }]);
    });

    it('a pinned model: a 502 of type freeway_provider_error', () => {
      const failures = noFailures();
      noteFailure(failures, failure('timeout', 'timeout'), model, 1, 1);
      const error = exhausted(pinned, failures, 1);
      expect([error.status, error.type, error.message, error.headers]).to.deep.equal([502, 'freeway_provider_error', 'Provider failed: alpha: timeout', undefined]);
    });

    it('a pinned model whose upstream rejected the request: a 400 passing on what it said', () => {
      const failures = noFailures();
      noteFailure(failures, failure('context_too_long', '400 maximum context length is 8192 tokens', { label: 400 }), model, 1, 1);
      const error = exhausted(pinned, failures, 1);
      expect([error.status, error.type, error.message]).to.deep.equal([400, 'invalid_request_error', 'alpha rejected the request: 400 maximum context length is 8192 tokens']);
    });

    it('no candidate could express the request: a 400 naming why, for an alias and for a pinned model', () => {
      const failures = noFailures();
      noteFailure(failures, failure('unsupported', 'cannot take this request: audio input'), model, 1, 1);
      expect(exhausted(alias, failures, 1).message).to.equal('No model behind free:auto can take this request: alpha: cannot take this request: audio input');
      expect(exhausted(pinned, failures, 1).message).to.equal('alpha cannot take this request: audio input');
      expect(exhausted(alias, failures, 1).status).to.equal(400);
    });

    it('an unsupported request with keys skipped for their health is still a 502: a healthy key might have taken it', () => {
      const failures = noFailures();
      noteFailure(failures, failure('unsupported', 'cannot take this request: audio input'), model, 1, 1);
      expect(exhausted({ ...alias, skipped: ['beta: down'] }, failures, 1).status).to.equal(502);
    });

    it('a first try refused for its output budget is named, but the retry decides the outcome', () => {
      const failures = noFailures();
      noteFailure(failures, failure('output_budget', '400 max_tokens must be less than or equal to 4096', { maxOutputTokens: 4096 }), model, 1, 1, false);
      noteFailure(failures, failure('server', '500 Internal error'), model, 1, 1);
      expect(failures.last?.kind).to.equal('server');
      expect(exhausted(alias, failures, 2).message).to.equal('All providers failed: alpha: 400 max_tokens must be less than or equal to 4096; alpha: 500 Internal error');
    });
  });
});
