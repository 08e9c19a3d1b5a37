import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { routingDocPath, routingDocSource } from '../../scripts/routing-doc.ts';
import type { CatalogModel } from '../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { CallerGone, decide, exhausted, failoverTable, failureReason, noFailures, noteFailure, outputCap, type FailureContext, type FailureRecord, type PlanSummary, type StepKind } from '../../server/routing/failover.ts';
import { BeforeRequest, type Failure, type FailureKind } from '../../server/routing/upstream-errors.ts';

/**
 * The fast tier of failover: the policy table (server/routing/failover.ts), what each
 * kind of failure does to the key's health, what the request tries next, and what the
 * caller is told. Pure functions, no server.
 */

const NO_CREDIT_WAIT_MS = 86_400_000;
const plugin = { id: 'alpha', header: 'X-Alpha-Key' } as unknown as ProviderPlugin;
const model = { id: 'alpha/a-large', provider: plugin, spec: { id: 'a-large', capabilities: [], contextWindow: 8192, maxOutputTokens: 4096 } } as unknown as CatalogModel;
const unlimited = { ...model, spec: { ...model.spec, maxOutputTokens: undefined } } as CatalogModel;

const failure = (kind: FailureKind, reason: string, extra: Partial<Failure> = {}): Failure => ({ kind, status: undefined, label: kind, reason, retryAfterMs: undefined, ...extra });

/** A failure of an alias's attempt with attempts and time to spare. */
const context = (failed: Failure, extra: Partial<FailureContext> = {}): FailureContext => ({
  failure: failed,
  thrown: new Error('thrown by the attempt'),
  pinned: false,
  provider: 'alpha',
  budgetSent: undefined,
  budgetLowered: false,
  attemptsLeft: 3,
  msLeft: 10_000,
  noCreditWaitMs: NO_CREDIT_WAIT_MS,
  ...extra,
});

describe('failover policy (golden, no server)', () => {
  // kind, reason -> what is recorded against the key (`shared`: what Redis keeps of the reason, the failure's label and error type), the step for an alias and for a pinned model, the caller's reason (single key, then key 2 of 3)
  const table: Array<[FailureKind, string, FailureRecord['health'], StepKind, StepKind, string, string]> = [
    ['rate_limited', '429 Rate limit reached', { kind: 'rate_limited', retryAfterMs: 30_000, reason: '429 Rate limit reached', shared: 'rate_limited' }, 'next key', 'next key', '429 Rate limit reached', '429 Rate limit reached'],
    ['invalid_key', '401 Invalid API Key', { kind: 'invalid_key', reason: '401 Invalid API Key', shared: 'invalid_key' }, 'next key', 'next key', 'the provider refused the key (401 Invalid API Key): fix X-Alpha-Key', 'the provider refused the key (401 Invalid API Key): fix key 2 of X-Alpha-Key'],
    ['no_credit', '402 Payment Required', { kind: 'no_credit', reason: '402 Payment Required', waitMs: NO_CREDIT_WAIT_MS, shared: 'no_credit' }, 'next key', 'next key', 'the provider refused the key: it has no credit left (402 Payment Required): add credit or fix X-Alpha-Key', 'the provider refused the key: it has no credit left (402 Payment Required): add credit or fix key 2 of X-Alpha-Key'],
    ['server', '500 Internal error', { kind: 'failure', reason: '500 Internal error', shared: 'server' }, 'next provider', 'stop', '500 Internal error', '500 Internal error'],
    ['bad_response', '200 then bad stream: x', { kind: 'failure', reason: '200 then bad stream: x', shared: 'bad_response' }, 'next provider', 'stop', '200 then bad stream: x', '200 then bad stream: x'],
    ['timeout', 'timeout', { kind: 'failure', reason: 'timeout', shared: 'timeout' }, 'next provider', 'stop', 'timeout', 'timeout'],
    ['connection', 'connection error', { kind: 'failure', reason: 'connection error', shared: 'connection' }, 'next provider', 'stop', 'connection error', 'connection error'],
    ['unsupported', 'cannot take this request: audio', undefined, 'next provider', 'stop', 'cannot take this request: audio', 'cannot take this request: audio'],
    ['model_unavailable', '404 model not found', undefined, 'next model', 'stop', '404 model not found', '404 model not found'],
    ['context_too_long', '400 maximum context length', undefined, 'larger window', 'stop', '400 maximum context length', '400 maximum context length'],
    ['output_budget', '400 max_tokens is too large', undefined, 'next model', 'stop', '400 max_tokens is too large', '400 max_tokens is too large'],
    ['request_too_large', '413 Request too large on tokens per minute (TPM): Limit 8000, Requested 41000', undefined, 'next key', 'next key', '413 Request too large on tokens per minute (TPM): Limit 8000, Requested 41000', '413 Request too large on tokens per minute (TPM): Limit 8000, Requested 41000'],
    ['request', '400 messages: required', undefined, 'reject', 'reject', '400 messages: required', '400 messages: required'],
    ['deadline', 'request timeout (REQUEST_TIMEOUT_MS, 1000 ms)', undefined, 'stop', 'stop', 'request timeout (REQUEST_TIMEOUT_MS, 1000 ms)', 'request timeout (REQUEST_TIMEOUT_MS, 1000 ms)'],
    ['internal', 'internal error: x', undefined, 'reject', 'reject', 'internal error: x', 'internal error: x'],
    ['aborted', 'aborted', undefined, 'reject', 'reject', 'aborted', 'aborted'],
  ];

  it('the table has a row for every kind of failure, and this test a case for every row', () => {
    expect(table.map(([kind]) => kind).sort()).to.deep.equal(Object.keys(failoverTable).sort());
  });

  it("docs/routing.md's failover table is the policy's (run `npm run docs` after changing it)", () => {
    const page = readFileSync(routingDocPath, 'utf8');
    expect(page).to.equal(routingDocSource(page));
  });

  for (const [kind, reason, health, aliasStep, pinnedStep, single, pooled] of table) {
    it(`${kind}: ${health ? `records ${health.kind}` : 'records nothing against the key'}, then the ${aliasStep} (pinned: ${pinnedStep})`, () => {
      const failed = failure(kind, reason, kind === 'rate_limited' ? { retryAfterMs: 30_000 } : {});
      const forAlias = decide(context(failed));
      expect(forAlias.record.health).to.deep.equal(health);
      expect(forAlias.step.kind).to.equal(aliasStep);
      expect(decide(context(failed, { pinned: true })).step.kind).to.equal(pinnedStep);
      expect(failureReason(failed, model, 1, 1)).to.equal(single);
      expect(failureReason(failed, model, 2, 3)).to.equal(pooled);
    });
  }

  describe('what a decision records and rejects with', () => {
    it('a 404 quarantines the model for the key, a 410 for every key of its provider, one about the request not at all', () => {
      expect(decide(context(failure('model_unavailable', '404', { status: 404 }))).record.quarantine).to.equal('key');
      expect(decide(context(failure('model_unavailable', '410', { status: 410 }))).record.quarantine).to.equal('provider');
      expect(decide(context(failure('model_unavailable', '404 No endpoints found that support tool use', { status: 404, aboutRequest: true }))).record.quarantine).to.equal(undefined);
    });

    it("a request too large for the key's per-request limit learns the limit and leaves the key healthy", () => {
      const decision = decide(context(failure('request_too_large', '413 Request too large', { status: 413, requestLimit: 8000 })));
      expect(decision.record.health).to.equal(undefined);
      expect(decision.record.requestLimit).to.equal(8000);
      expect(decision.step.kind).to.equal('next key');
      expect(decide(context(failure('request_too_large', '413 Request too large', { status: 413 }))).record.requestLimit).to.equal(undefined);
    });

    it('a refused budget with a stated maximum is retried lowered, once, with an attempt and time left', () => {
      const refused = failure('output_budget', '400 max_tokens must be less than or equal to 4096', { maxOutputTokens: 4096 });
      const decision = decide(context(refused, { budgetSent: 10_000 }));
      expect(decision.step).to.deep.equal({ kind: 'lower budget', maxOutputTokens: 4096 });
      expect(decision.record.outputLimit).to.equal(4096);
      expect(decide(context(refused, { budgetSent: 10_000, pinned: true })).step.kind).to.equal('lower budget');
      expect(decide(context(refused, { budgetSent: 10_000, budgetLowered: true })).step.kind).to.equal('next model');
      expect(decide(context(refused, { budgetSent: 10_000, attemptsLeft: 0 })).step.kind).to.equal('next model');
      expect(decide(context(refused, { budgetSent: 10_000, msLeft: 0 })).step.kind).to.equal('next model');
      expect(decide(context(refused, { budgetSent: 2000 })).step.kind).to.equal('next model');
      expect(decide(context(refused, { budgetSent: 10_000, attemptsLeft: 0, pinned: true })).step.kind).to.equal('stop');
    });

    it('a reject carries the error the request ends with: the upstream\'s 400, the bug itself, or nobody left to answer', () => {
      const request = decide(context(failure('request', '400 messages: required'))).step;
      expect(request.kind === 'reject' && request.error).to.include({ status: 400, message: 'alpha rejected the request: 400 messages: required' });
      const bug = new TypeError('a bug');
      const internal = decide(context(failure('internal', 'internal error: a bug'), { thrown: new BeforeRequest(bug) })).step;
      expect(internal.kind === 'reject' && internal.error).to.equal(bug);
      const aborted = decide(context(failure('aborted', 'aborted'))).step;
      expect(aborted.kind === 'reject' && aborted.error).to.be.instanceOf(CallerGone);
    });
  });

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
      noteFailure(failures, { failure: failure('rate_limited', '429 Rate limit reached', { retryAfterMs: 7_500 }), model, position: 1, count: 2, final: true });
      noteFailure(failures, { failure: failure('server', '500 Internal error'), model, position: 2, count: 2, final: true });
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
      noteFailure(failures, { failure: failure('timeout', 'timeout'), model, position: 1, count: 1, final: true });
      const error = exhausted(pinned, failures, 1);
      expect([error.status, error.type, error.message, error.headers]).to.deep.equal([502, 'freeway_provider_error', 'Provider failed: alpha: timeout', undefined]);
    });

    it('a pinned model whose upstream rejected the request: a 400 passing on what it said', () => {
      const failures = noFailures();
      noteFailure(failures, { failure: failure('context_too_long', '400 maximum context length is 8192 tokens', { label: 400 }), model, position: 1, count: 1, final: true });
      const error = exhausted(pinned, failures, 1);
      expect([error.status, error.type, error.message]).to.deep.equal([400, 'invalid_request_error', 'alpha rejected the request: 400 maximum context length is 8192 tokens']);
    });

    it('no candidate could express the request: a 400 naming why, for an alias and for a pinned model', () => {
      const failures = noFailures();
      noteFailure(failures, { failure: failure('unsupported', 'cannot take this request: audio input'), model, position: 1, count: 1, final: true });
      expect(exhausted(alias, failures, 1).message).to.equal('No model behind free:auto can take this request: alpha: cannot take this request: audio input');
      expect(exhausted(pinned, failures, 1).message).to.equal('alpha cannot take this request: audio input');
      expect(exhausted(alias, failures, 1).status).to.equal(400);
    });

    it('an unsupported request with keys skipped for their health is still a 502: a healthy key might have taken it', () => {
      const failures = noFailures();
      noteFailure(failures, { failure: failure('unsupported', 'cannot take this request: audio input'), model, position: 1, count: 1, final: true });
      expect(exhausted({ ...alias, skipped: ['beta: down'] }, failures, 1).status).to.equal(502);
    });

    it('a first try refused for its output budget is named, but the retry decides the outcome', () => {
      const failures = noFailures();
      noteFailure(failures, { failure: failure('output_budget', '400 max_tokens must be less than or equal to 4096', { maxOutputTokens: 4096 }), model, position: 1, count: 1, final: false });
      noteFailure(failures, { failure: failure('server', '500 Internal error'), model, position: 1, count: 1, final: true });
      expect(failures.last?.kind).to.equal('server');
      expect(exhausted(alias, failures, 2).message).to.equal('All providers failed: alpha: 400 max_tokens must be less than or equal to 4096; alpha: 500 Internal error');
    });
  });
});
