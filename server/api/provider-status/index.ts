import type { Request, RequestHandler, Response } from 'express';
import type { Catalog } from '../../../catalog/catalog.ts';
import type { FetchFunction, ProviderPlugin } from '../../../providers/types.ts';
import { fail } from '../validation.ts';
import type { Redactor } from '../../core/redact.ts';
import type { HealthRecord, HealthStore } from '../../state/health-records.ts';
import type { KeyHasher } from '../../state/key-hash.ts';
import type { KeyCheckRecord, KeyCheckStore } from '../../state/key-checks.ts';
import type { UsageCounter, UsageRecord } from '../../state/usage-records.ts';
import { usageEntry, type UsageEntry } from './usage-entry.ts';
import { quotaEntry, type QuotaEntry } from '../key-health.ts';
import { checkOneKey, checkUrl } from './key-check.ts';
import { curatedOffer, type KeyState, type UsableModels, type UsableNow } from './usable-models.ts';
import { viewHealth } from '../../routing/index.ts';
import { isAnonymous, type KeyReader } from '../../core/keys.ts';

export interface ProvidersDeps {
  readonly catalog: Catalog;
  readonly readKeys: KeyReader;
  readonly health: HealthStore;
  readonly checks: KeyCheckStore;
  readonly hashKey: KeyHasher;
  readonly baseURLs: ReadonlyMap<string, string>;
  readonly fetch: FetchFunction;
  readonly redact: Redactor;
  readonly usable: UsableModels;
  /** NO_CREDIT_WAIT_MS: how long a key a check found without credit is skipped. */
  readonly noCreditWaitMs: number;
  /** The client a request counts against, as the rate limit sees it. */
  readonly clientOf: (req: Request) => string;
  readonly intervalMs: number;
  readonly perMinute: number;
  readonly timeoutMs: number;
  /** Usage per key; absent with USAGE=off, and then no key entry has `usage`. */
  readonly usage?: Pick<UsageCounter, 'read'>;
  readonly now?: () => number;
}

/** What `?check=1` did for one key. */
type CheckStatus = 'checked' | 'cached' | 'budget_spent' | 'not_checkable' | 'failed';

interface KeyEntry {
  position: number;
  state: KeyState;
  retryAfter: number | null;
  quota: QuotaEntry | null;
  /** Epoch seconds of the last key check's answer. */
  checkedAt: number | null;
  usableModels: number;
  usableAliases: readonly string[];
  /** Attempts that failed in a row (a success resets it), as in `/health`. */
  consecutiveFailures: number;
  /** Why the key last failed or was refused (redacted), while that still stands; else null. */
  reason: string | null;
  /** The entry is for calls without a key (`anonymous`), not a key: the provider's limits for them are on the provider. */
  anonymous?: true;
  check?: { status: CheckStatus; message?: string };
  /** What the key did, per day and model, today and the six days before. */
  usage?: UsageEntry;
}

interface PendingKey {
  readonly plugin: ProviderPlugin;
  readonly key: string;
  readonly id: string;
  check?: { status: CheckStatus; message?: string };
}

/** `check` is absent, `1` or `true`; anything else is a mistake worth saying. */
function wantsCheck(req: Request): boolean {
  const at = req.originalUrl.indexOf('?');
  if (at === -1) return false;
  const value = new URLSearchParams(req.originalUrl.slice(at + 1)).get('check');
  if (value === null || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  fail('check', 'must be 1 (check the keys now) or absent.');
}

/** The state shown: health's, `no_credit` from a check health has not heard of since, `unchecked` when nothing is known. */
type KeyStateAt = ReturnType<typeof stateOf>;

function stateOf(
  record: HealthRecord | undefined,
  check: KeyCheckRecord | undefined,
  at: number,
): { state: KeyState; retryAfter: number | undefined; consecutiveFailures: number; reason: string | undefined } {
  if (check?.result === 'no_credit' && (record === undefined || record.lastSeen <= check.checkedAt)) {
    return { state: 'no_credit', retryAfter: undefined, consecutiveFailures: record?.consecutiveFailures ?? 0, reason: check.reason };
  }
  if (record !== undefined) {
    const view = viewHealth(record, at);
    return { state: view.state, retryAfter: view.retryAfter, consecutiveFailures: view.consecutiveFailures, reason: view.reason };
  }
  if (check === undefined || check.result === 'failed') return { state: 'unchecked', retryAfter: undefined, consecutiveFailures: 0, reason: undefined };
  return { state: check.result === 'valid' ? 'healthy' : check.result, retryAfter: undefined, consecutiveFailures: 0, reason: check.reason };
}

/**
 * How a key looks, for a person pasting one: the plugin's `keyHint`, else the literal start of
 * its first key pattern (`gsk_[A-Za-z0-9]+` -> `gsk_…`); null when neither says anything.
 */
export function keyHintOf(plugin: Pick<ProviderPlugin, 'keyHint' | 'keyPatterns'>): string | null {
  if (plugin.keyHint !== undefined) return plugin.keyHint;
  const source = plugin.keyPatterns[0]?.source.replace(/^(?:\^|\\b)/, '') ?? '';
  let prefix = '';
  for (let i = 0; i < source.length; i++) {
    const char = source.charAt(i);
    if (char === '\\' && /[^A-Za-z0-9]/.test(source.charAt(i + 1))) {
      prefix += source.charAt(++i);
    } else if ('[](){}.*+?|^$\\'.includes(char)) {
      // A quantifier makes the character before it optional or repeated: it is not part of every key.
      if ('*+?{'.includes(char)) prefix = prefix.slice(0, -1);
      break;
    } else {
      prefix += char;
    }
  }
  return prefix.length >= 2 ? `${prefix}…` : null;
}

const notCheckable = (plugin: ProviderPlugin): string =>
  `${plugin.name} documents no call Freeway can check a key with (no key check, no model listing): the key cannot be checked; its state is what requests have seen.`;

/**
 * `GET /v1/providers`: every provider plugin, and for the keys in the request's
 * headers their state by position (never any key material). `?check=1` asks each
 * provider about each key now, within the bounds of KEY_CHECK_INTERVAL_MS and
 * KEY_CHECKS_PER_MINUTE.
 */
export function providersApi(deps: ProvidersDeps): RequestHandler {
  const { catalog, readKeys, health, checks, hashKey, usable } = deps;
  const now = deps.now ?? Date.now;
  const offer = curatedOffer(catalog);
  const base = catalog.providers.map((plugin) => ({
    id: plugin.id,
    name: plugin.name,
    header: plugin.header,
    keyUrl: plugin.keyUrl,
    tier: plugin.tier.tier,
    tierSource: plugin.tier.source,
    tierChecked: plugin.tier.checked,
    aliases: offer.get(plugin.id)?.aliases ?? [],
    // Every curated model of every kind, as many as the keyless GET /v1/models lists for the provider.
    models: plugin.models.length + (plugin.embeddingModels?.length ?? 0) + (plugin.transcriptionModels?.length ?? 0),
    checkable: plugin.keyCheck !== undefined || plugin.listing !== undefined,
    keyHint: keyHintOf(plugin),
    signUp: plugin.signUp ?? null,
    anonymous: plugin.anonymous ?? null,
  }));

  async function runChecks(req: Request, pending: readonly PendingKey[]): Promise<boolean> {
    const at = now();
    const client = deps.clientOf(req);
    let budgetSpent = false;
    const due: Array<{ entry: PendingKey; url: string }> = [];
    for (const entry of pending) {
      if (isAnonymous(entry.key)) {
        // Nothing to check, and a call would spend the instance's allowance: none is made.
        entry.check = { status: 'not_checkable', message: `Calls without a key have no key to check; their state is what requests have seen. ${entry.plugin.name} allows ${entry.plugin.anonymous?.limits ?? 'them'}.` };
        continue;
      }
      const url = checkUrl(entry.plugin, deps.baseURLs.get(entry.plugin.id) ?? entry.plugin.baseURL, entry.key);
      if (url === undefined) {
        entry.check = { status: 'not_checkable', message: notCheckable(entry.plugin) };
      } else if (!(await checks.claim(entry.id, at, deps.intervalMs))) {
        entry.check = { status: 'cached', message: `Checked less than ${Math.round(deps.intervalMs / 1000)} s ago (KEY_CHECK_INTERVAL_MS): the last answer is shown.` };
      } else if (!(await checks.spend(client, at, deps.perMinute))) {
        budgetSpent = true;
        entry.check = { status: 'budget_spent', message: `This client has used its ${deps.perMinute} key checks of the minute (KEY_CHECKS_PER_MINUTE): the last known state is shown.` };
      } else {
        due.push({ entry, url });
      }
    }
    if (due.length === 0) return budgetSpent;
    const signal = AbortSignal.timeout(deps.timeoutMs);
    await Promise.all(
      due.map(async ({ entry, url }) => {
        const answer = await checkOneKey({ plugin: entry.plugin, url, key: entry.key, fetch: deps.fetch, signal, redact: deps.redact });
        const answeredAt = now();
        await checks.save(entry.id, answer.reason === undefined ? { checkedAt: answeredAt, result: answer.result } : { checkedAt: answeredAt, result: answer.result, reason: answer.reason });
        const reason = answer.reason ?? '';
        if (answer.result === 'invalid_key') await health.record(entry.id, { kind: 'invalid_key', reason }, answeredAt);
        else if (answer.result === 'no_credit') await health.record(entry.id, { kind: 'no_credit', reason, waitMs: deps.noCreditWaitMs }, answeredAt);
        else if (answer.result === 'rate_limited') await health.record(entry.id, { kind: 'rate_limited', retryAfterMs: answer.retryAfterMs, reason }, answeredAt);
        else if (answer.result === 'valid') {
          // A listing that answers says nothing of a spent quota: only a refused key is cleared.
          const [record] = await health.get([entry.id]);
          if (record?.state === 'invalid_key') await health.record(entry.id, { kind: 'success' }, answeredAt);
        }
        entry.check = answer.result === 'failed' ? { status: 'failed', message: `The check did not get an answer about the key: ${reason}` } : { status: 'checked' };
      }),
    );
    return budgetSpent;
  }

  return async (req: Request, res: Response) => {
    const check = wantsCheck(req);
    const keys = readKeys(req.headers);
    res.locals.keys = keys;
    const pending: PendingKey[] = [];
    for (const [providerId, pool] of keys) {
      const plugin = catalog.providers.find((candidate) => candidate.id === providerId);
      if (plugin) for (const key of pool) pending.push({ plugin, key, id: hashKey(providerId, key) });
    }
    const budgetSpent = check && pending.length > 0 ? await runChecks(req, pending) : false;
    const ids = pending.map((entry) => entry.id);
    const [records, checked, used] = await Promise.all([health.get(ids), checks.get(ids), deps.usage?.read(ids)]);
    const at = now();
    const byProvider = new Map<string, KeyEntry[]>();
    const client = (): string => deps.clientOf(req);
    const states = pending.map((entry, i) => stateOf(records[i], checked[i], at));
    const usableNow = await Promise.all(pending.map((entry, i) => usable({ provider: entry.plugin, key: entry.key, keyId: entry.id, state: (states[i] as KeyStateAt).state, client })));
    pending.forEach((entry, i) => {
      const last = checked[i];
      const { state, retryAfter, consecutiveFailures, reason } = states[i] as KeyStateAt;
      const can = usableNow[i] as UsableNow;
      const list = byProvider.get(entry.plugin.id) ?? [];
      const keyEntry: KeyEntry = {
        position: list.length + 1,
        state,
        retryAfter: retryAfter ?? null,
        quota: quotaEntry(records[i]?.quota, at) ?? null,
        checkedAt: last ? Math.floor(last.checkedAt / 1000) : null,
        usableModels: can.models,
        usableAliases: can.aliases,
        consecutiveFailures,
        reason: reason ?? null,
      };
      // Calls without a key are nobody's usage: not counted, not shown.
      if (isAnonymous(entry.key)) keyEntry.anonymous = true;
      else if (used) keyEntry.usage = usageEntry(used[i] as UsageRecord[]);
      if (entry.check) keyEntry.check = last?.reason !== undefined && entry.check.status === 'cached' ? { ...entry.check, message: `${entry.check.message} It said: ${last.reason}` } : entry.check;
      list.push(keyEntry);
      byProvider.set(entry.plugin.id, list);
    });
    const data = base.map((provider) => {
      const entries = byProvider.get(provider.id);
      return entries ? { ...provider, keys: entries } : provider;
    });
    const body: Record<string, unknown> = { object: 'list', data };
    if (check) {
      body.check = budgetSpent
        ? { budgetSpent: true, message: `Key check budget spent: at most ${deps.perMinute} checks per minute per client (KEY_CHECKS_PER_MINUTE). The last known states are shown.` }
        : { budgetSpent: false };
    }
    res.json(body);
  };
}
