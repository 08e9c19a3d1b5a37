import { expect } from 'chai';
import type { Alias, CatalogModel } from '../../catalog/catalog.ts';
import type { Capability, ProviderPlugin } from '../../providers/types.ts';
import type { HttpError } from '../../server/core/errors.ts';
import type { HealthView } from '../../server/routing/health-policy.ts';
import type { LiveList } from '../../server/models/live-lists.ts';
import type { KeyView } from '../../server/models/views.ts';
import type { RoutingStrategy } from '../../server/config/index.ts';
import { candidateModels, planCandidates, type Plan, type PlanInput } from '../../server/routing/plan.ts';

/**
 * The fast tier of routing: planning is a pure function of the catalog entry, the
 * request's keys, their health, their live lists and latency estimates. Each case
 * states those inputs and the candidate order and skipped list they make; no server,
 * no clock, no store.
 */

type Tier = ProviderPlugin['tier']['tier'];

function provider(id: string, tier: Tier = 'free'): ProviderPlugin {
  const header = `X-${id.charAt(0).toUpperCase()}${id.slice(1)}-Key`;
  return { id, header, tier: { tier, source: 'https://example.com', checked: '2026-11-25' } } as unknown as ProviderPlugin;
}

function model(plugin: ProviderPlugin, id: string, spec: { capabilities?: Capability[]; contextWindow?: number; maxOutputTokens?: number; score?: number } = {}): CatalogModel {
  const quality = spec.score === undefined ? undefined : { score: spec.score, benchmark: 'test index' };
  return {
    id: `${plugin.id}/${id}`,
    provider: plugin,
    spec: { id, capabilities: spec.capabilities ?? [], contextWindow: spec.contextWindow ?? 128_000, maxOutputTokens: spec.maxOutputTokens, quality },
  } as unknown as CatalogModel;
}

const alpha = provider('alpha');
const beta = provider('beta');
const gamma = provider('gamma', 'trial credit');
const delta = provider('delta', 'paid only');
const a1 = model(alpha, 'a-large', { capabilities: ['tool-use'] });
const a2 = model(alpha, 'a-small');
const b1 = model(beta, 'b-large', { capabilities: ['tool-use', 'vision'] });
const g1 = model(gamma, 'g-large', { capabilities: ['tool-use'] });
const d1 = model(delta, 'd-large', { capabilities: ['tool-use'] });
// Catalog order: free tiers first, then by priority; the alias keeps it.
const auto: Alias = { id: 'free:auto', capability: undefined, models: [a1, a2, b1, g1, d1] };
// Scored models for quality routing, in catalog order (which is not score order).
const qMid = model(alpha, 'q-mid', { score: 40 });
const qNear = model(alpha, 'q-near', { score: 48 });
const qTop = model(beta, 'q-top', { score: 50 });
const qPlain = model(alpha, 'q-plain');
const qUnscored = model(beta, 'q-unscored');
const qOk = model(gamma, 'q-ok', { score: 30 });
const qBest = model(gamma, 'q-best', { score: 60 });
const ranked: Alias = { id: 'free:auto', capability: undefined, models: [qMid, qNear, qTop, qPlain, qUnscored, qOk, qBest] };
const rankedFast: Alias = { ...ranked, id: 'free:fast' };

const hashed = (id: string, keys: readonly string[]): string[] => keys.map((key) => `${id}:h(${key})`);

interface Case {
  readonly keys: Record<string, string[]>;
  readonly entry?: Alias | CatalogModel;
  readonly needs?: Capability[];
  readonly health?: Record<string, Partial<HealthView>>;
  readonly lists?: Record<string, Array<string[] | undefined>>;
  readonly quarantined?: Record<string, string[]>;
  readonly routing?: RoutingStrategy;
  readonly qualityBand?: number;
  readonly preferred?: string;
  readonly latency?: Record<string, number>;
  readonly random?: number[];
  readonly exploreShare?: number;
}

/** The alias models a live list holds, in catalog order (what `ModelKnowledge.view` makes of a list). */
function listView(plugin: ProviderPlugin, list: LiveList): KeyView {
  const models = auto.models.filter((m) => m.provider.id === plugin.id && list.models.has(m.spec.id));
  return { provider: plugin, aliases: new Map([[auto.id, models]]), chat: new Map(), listed: new Map() };
}

function planOf(c: Case): Plan {
  const entry = c.entry ?? auto;
  const keys = new Map(Object.entries(c.keys));
  const needs = c.needs ?? [];
  const models = candidateModels(entry, keys, needs);
  const healthIds = new Map<string, string[]>();
  for (const m of models) if (!healthIds.has(m.provider.id)) healthIds.set(m.provider.id, hashed(m.provider.id, keys.get(m.provider.id) ?? []));
  const views = new Map(Object.entries(c.health ?? {}).map(([id, view]) => [id, { state: 'healthy', consecutiveFailures: 0, retryAfter: undefined, reason: undefined, tier: 0, ...view } as HealthView]));
  const lists = c.lists && new Map(Object.entries(c.lists).map(([id, perKey]) => [id, perKey.map((ids) => (ids ? { models: new Map(ids.map((m) => [m, { id: m }])) } as unknown as LiveList : undefined))]));
  const quarantined = c.quarantined && new Map(Object.entries(c.quarantined).map(([id, ids]) => [id, new Map(ids.map((m) => [m, 'quarantined']))]));
  const draws = [...(c.random ?? [])];
  const input: PlanInput = {
    entry,
    models,
    needs,
    keys,
    healthIds,
    health: (id) => views.get(id),
    lists,
    quarantined,
    view: listView,
    poolId: (id, ids) => (ids.length === 1 ? (ids[0] as string) : `${id}:pool`),
    routing: c.routing ?? 'priority',
    qualityBand: c.qualityBand ?? 3,
    preferred: c.preferred,
    exploreShare: c.exploreShare ?? 0,
    latency: (id) => c.latency?.[id],
    random: () => draws.shift() ?? 0.99,
  };
  return planCandidates(input);
}

/** A plan as the golden files state it: `model key n/count tier`, then what was skipped. */
function golden(plan: Plan): { order: string[]; skipped: readonly string[]; retryAfterSeconds: number | undefined } {
  return {
    order: plan.candidates.map((c) => `${c.model.id} key ${c.keyPosition}/${c.keyCount}${c.tier === 1 ? ' probe' : ''}`),
    skipped: plan.skipped,
    retryAfterSeconds: plan.retryAfterSeconds,
  };
}

describe('planning (golden, no server)', () => {
  const cases: Array<[string, Case, ReturnType<typeof golden>]> = [
    [
      'free tiers in catalog order, then trial credit, then paid only',
      { keys: { delta: ['d'], gamma: ['g'], beta: ['b'], alpha: ['a'] } },
      { order: ['alpha/a-large key 1/1', 'alpha/a-small key 1/1', 'beta/b-large key 1/1', 'gamma/g-large key 1/1', 'delta/d-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'only the providers whose key was sent',
      { keys: { beta: ['b'], delta: ['d'] } },
      { order: ['beta/b-large key 1/1', 'delta/d-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'a capability the request needs leaves out the models without it',
      { keys: { alpha: ['a'], beta: ['b'] }, needs: ['vision'] },
      { order: ['beta/b-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'a rate-limited key is skipped with its wait; the shortest wait is the Retry-After',
      {
        keys: { alpha: ['a'], beta: ['b'] },
        health: {
          'alpha:h(a)': { state: 'rate_limited', retryAfter: 30, reason: '429 Rate limit reached', tier: 2 },
          'beta:h(b)': { state: 'down', retryAfter: 12, tier: 2 },
        },
      },
      { order: [], skipped: ['alpha: rate limited, retry after 30s (429 Rate limit reached)', 'beta: down, retry after 12s'], retryAfterSeconds: 12 },
    ],
    [
      'a refused key says what to fix and gives no Retry-After',
      { keys: { alpha: ['a1', 'a2'], beta: ['b'] }, health: { 'alpha:h(a1)': { state: 'invalid_key', retryAfter: 3600, reason: '401 Invalid API Key', tier: 2 } } },
      {
        order: ['alpha/a-large key 2/2', 'alpha/a-small key 2/2', 'beta/b-large key 1/1'],
        skipped: ['alpha key 1: the provider refused the key earlier (401 Invalid API Key): fix key 1 of X-Alpha-Key'],
        retryAfterSeconds: undefined,
      },
    ],
    [
      'a key with no credit left says so',
      { keys: { gamma: ['g'] }, health: { 'gamma:h(g)': { state: 'no_credit', retryAfter: 86_400, tier: 2 } } },
      { order: [], skipped: ['gamma: the provider refused the key earlier: it has no credit left (no credit): add credit or fix X-Gamma-Key'], retryAfterSeconds: undefined },
    ],
    [
      'a half-open key keeps its place and is marked as the probe',
      { keys: { alpha: ['a'], beta: ['b'] }, health: { 'alpha:h(a)': { state: 'half_open', tier: 1 } } },
      { order: ['alpha/a-large key 1/1 probe', 'alpha/a-small key 1/1 probe', 'beta/b-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'latency routing: the fastest first within a tier, never ahead of a cheaper tier; unknown estimates last',
      {
        keys: { alpha: ['a'], beta: ['b'], gamma: ['g'] },
        routing: 'latency',
        latency: { 'alpha:h(a)|a-large': 900, 'beta:h(b)|b-large': 200, 'gamma:h(g)|g-large': 10 },
      },
      { order: ['beta/b-large key 1/1', 'alpha/a-large key 1/1', 'alpha/a-small key 1/1', 'gamma/g-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'latency routing explores: with a draw under EXPLORE_SHARE another model of the first tier goes first',
      { keys: { alpha: ['a'], beta: ['b'], gamma: ['g'] }, routing: 'latency', exploreShare: 0.1, random: [0.05, 0.99], latency: { 'alpha:h(a)|a-large': 100 } },
      { order: ['beta/b-large key 1/1', 'alpha/a-large key 1/1', 'alpha/a-small key 1/1', 'gamma/g-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'live lists: an alias picks only the models a key lists; a key without a list serves the curated ones',
      { keys: { alpha: ['a'], beta: ['b'] }, lists: { alpha: [['a-small']], beta: [undefined] } },
      { order: ['alpha/a-small key 1/1', 'beta/b-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      "live lists in a pool: the union of the keys' lists, in key order, each model with the first key that lists it",
      { keys: { alpha: ['a1', 'a2'] }, lists: { alpha: [['a-small'], ['a-large', 'a-small']] } },
      { order: ['alpha/a-small key 1/2', 'alpha/a-large key 2/2'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      "a key whose live list holds none of the alias's models is named, with why",
      { keys: { alpha: ['a'], beta: ['b'] }, lists: { alpha: [['a-other']], beta: [undefined] } },
      { order: ['beta/b-large key 1/1'], skipped: ["alpha: its model list (GET /v1/models with the key) holds none of free:auto's models"], retryAfterSeconds: undefined },
    ],
    [
      "a pool's keys with nothing to try are each named, with the capability asked for",
      { keys: { alpha: ['a1', 'a2'], beta: ['b'] }, needs: ['tool-use'], lists: { alpha: [['a-small'], []], beta: [undefined] } },
      {
        order: ['beta/b-large key 1/1'],
        skipped: [
          "alpha key 1: its model list (GET /v1/models with the key) holds none of free:auto with tool-use's models",
          "alpha key 2: its model list (GET /v1/models with the key) holds none of free:auto with tool-use's models",
        ],
        retryAfterSeconds: undefined,
      },
    ],
    [
      'a key whose models are all quarantined is named, with the first quarantine and how many more',
      { keys: { alpha: ['a'], beta: ['b'] }, quarantined: { 'alpha:h(a)': ['a-large', 'a-small'] } },
      { order: ['beta/b-large key 1/1'], skipped: ['alpha: the models of free:auto it serves are quarantined: a-large (quarantined) and 1 more'], retryAfterSeconds: undefined },
    ],
    [
      'a model quarantined for a key is skipped by the alias',
      { keys: { alpha: ['a'], beta: ['b'] }, quarantined: { 'alpha:h(a)': ['a-large'] } },
      { order: ['alpha/a-small key 1/1', 'beta/b-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'a pinned model with one key is tried whatever its health',
      { entry: b1, keys: { beta: ['b'] }, health: { 'beta:h(b)': { state: 'down', retryAfter: 30, tier: 2 } } },
      { order: ['beta/b-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'a pinned model with a pool skips its unhealthy keys',
      { entry: b1, keys: { beta: ['b1', 'b2'] }, health: { 'beta:h(b1)': { state: 'rate_limited', retryAfter: 5, tier: 2 } } },
      { order: ['beta/b-large key 2/2'], skipped: ['beta key 1: rate limited, retry after 5s'], retryAfterSeconds: 5 },
    ],
    [
      'quality routing: the highest score first, models without a score after the scored ones, costlier tiers after in catalog order',
      { entry: ranked, keys: { alpha: ['a'], beta: ['b'], gamma: ['g'] }, routing: 'quality' },
      {
        order: ['beta/q-top key 1/1', 'alpha/q-near key 1/1', 'alpha/q-mid key 1/1', 'alpha/q-plain key 1/1', 'beta/q-unscored key 1/1', 'gamma/q-ok key 1/1', 'gamma/q-best key 1/1'],
        skipped: [],
        retryAfterSeconds: undefined,
      },
    ],
    [
      'quality routing: scores within ROUTING_QUALITY_BAND of the best go by speed; a lower band never jumps ahead however fast',
      {
        entry: ranked,
        keys: { alpha: ['a'], beta: ['b'] },
        routing: 'quality',
        latency: { 'alpha:h(a)|q-near': 150, 'beta:h(b)|q-top': 700, 'alpha:h(a)|q-mid': 20, 'beta:h(b)|q-unscored': 30, 'alpha:h(a)|q-plain': 90 },
      },
      { order: ['alpha/q-near key 1/1', 'beta/q-top key 1/1', 'alpha/q-mid key 1/1', 'beta/q-unscored key 1/1', 'alpha/q-plain key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'quality routing with a band of 0: strictly by score',
      { entry: ranked, keys: { alpha: ['a'], beta: ['b'] }, routing: 'quality', qualityBand: 0, latency: { 'alpha:h(a)|q-near': 150, 'beta:h(b)|q-top': 700 } },
      { order: ['beta/q-top key 1/1', 'alpha/q-near key 1/1', 'alpha/q-mid key 1/1', 'alpha/q-plain key 1/1', 'beta/q-unscored key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'quality routing explores only within the top band',
      { entry: ranked, keys: { alpha: ['a'], beta: ['b'] }, routing: 'quality', exploreShare: 0.1, random: [0.05, 0.99] },
      { order: ['alpha/q-near key 1/1', 'beta/q-top key 1/1', 'alpha/q-mid key 1/1', 'alpha/q-plain key 1/1', 'beta/q-unscored key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      'free:fast under quality routing goes by speed, whatever the scores',
      { entry: rankedFast, keys: { alpha: ['a'], beta: ['b'] }, routing: 'quality', latency: { 'alpha:h(a)|q-plain': 40, 'alpha:h(a)|q-mid': 80, 'beta:h(b)|q-top': 900 } },
      { order: ['alpha/q-plain key 1/1', 'alpha/q-mid key 1/1', 'beta/q-top key 1/1', 'alpha/q-near key 1/1', 'beta/q-unscored key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      "a conversation's model goes first when it is a candidate of the leading tier",
      { entry: ranked, keys: { alpha: ['a'], beta: ['b'] }, routing: 'quality', preferred: 'alpha/q-mid' },
      { order: ['alpha/q-mid key 1/1', 'beta/q-top key 1/1', 'alpha/q-near key 1/1', 'alpha/q-plain key 1/1', 'beta/q-unscored key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      "a conversation's model of a costlier tier does not jump ahead of the free ones",
      { entry: ranked, keys: { beta: ['b'], gamma: ['g'] }, routing: 'quality', preferred: 'gamma/q-best' },
      { order: ['beta/q-top key 1/1', 'beta/q-unscored key 1/1', 'gamma/q-ok key 1/1', 'gamma/q-best key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
    [
      "a conversation's model that is no candidate (its key rate-limited) changes nothing",
      { entry: ranked, keys: { alpha: ['a'], beta: ['b'] }, routing: 'quality', preferred: 'alpha/q-mid', health: { 'alpha:h(a)': { state: 'rate_limited', retryAfter: 9, tier: 2 } } },
      { order: ['beta/q-top key 1/1', 'beta/q-unscored key 1/1'], skipped: ['alpha: rate limited, retry after 9s'], retryAfterSeconds: 9 },
    ],
    [
      'a pinned model ignores quarantines and live lists',
      { entry: a1, keys: { alpha: ['a'] }, quarantined: { 'alpha:h(a)': ['a-large'] }, lists: { alpha: [['a-small']] } },
      { order: ['alpha/a-large key 1/1'], skipped: [], retryAfterSeconds: undefined },
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      expect(golden(planOf(input))).to.deep.equal(expected);
    });
  }

  it('a pool of keys is one pool id for round robin and latency, and each key keeps its position', () => {
    const plan = planOf({ keys: { alpha: ['a1', 'a2', 'a3'] } });
    expect(plan.keys.get('alpha')).to.deep.include({ count: 3, poolId: 'alpha:pool' });
    expect(plan.keys.get('alpha')?.usable.map((key) => key.position)).to.deep.equal([1, 2, 3]);
  });

  describe('entries the keys cannot serve', () => {
    const refused = (entry: Alias | CatalogModel, keys: Record<string, string[]>, needs: Capability[] = []): HttpError => {
      try {
        candidateModels(entry, new Map(Object.entries(keys)), needs);
      } catch (error) {
        return error as HttpError;
      }
      throw new Error('candidateModels did not refuse');
    };

    it('a pinned model without its header: a 401 naming the header', () => {
      const error = refused(a1, { beta: ['b'] });
      expect([error.status, error.type, error.message]).to.deep.equal([401, 'authentication_error', 'alpha/a-large needs the X-Alpha-Key header.']);
    });

    it('an alias without any key: a 401 naming every header it could use', () => {
      const error = refused(auto, {});
      expect([error.status, error.type, error.message]).to.deep.equal([401, 'authentication_error', 'No provider key for free:auto. Send one of: X-Alpha-Key, X-Beta-Key, X-Gamma-Key, X-Delta-Key.']);
    });

    it('keys of none of its providers: a 400 (not unauthorised) saying so, and whose keys would do', () => {
      const error = refused(auto, { omega: ['o'] });
      expect([error.status, error.type, error.message]).to.deep.equal([400, 'invalid_request_error', 'Your keys (X-Omega-Key) have no model for free:auto; keys of X-Alpha-Key, X-Beta-Key, X-Gamma-Key, X-Delta-Key do.']);
    });

    it('keyed providers that lack a needed capability: a 400 naming what is missing and the headers that have it', () => {
      const error = refused(auto, { alpha: ['a'] }, ['vision']);
      expect([error.status, error.type, error.message]).to.deep.equal([400, 'invalid_request_error', 'Your keys (X-Alpha-Key) have no model for free:auto that takes images; keys of X-Beta-Key do.']);
    });
  });
});
