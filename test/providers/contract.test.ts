/**
 * The plugin contract, checked over every folder the loader discovers: a new
 * provider folder that breaks any rule here fails before it reaches a request,
 * and the failure names the folder and the rule in words. docs/adding-a-provider.md
 * lists the same rules.
 */
import { readdir } from 'node:fs/promises';
import { expect } from 'chai';
import type { Capability, FetchFunction, ProviderFixtures, ProviderPlugin, UpstreamErrorKind } from '../../providers/types.ts';
import { createRedactor, REDACTED } from '../../server/core/redact.ts';
import { providerFixtures, providerPlugins, providersDir } from '../support/plugins.ts';
import { chatPath, expectCredential } from '../support/wire.ts';

const plugins = await providerPlugins();
const fixtures = await providerFixtures();
const folders = (await readdir(providersDir, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const capabilities: readonly Capability[] = ['fast', 'reasoning', 'long-context', 'vision', 'tool-use', 'pdf'];
const kinds: readonly UpstreamErrorKind[] = ['rate_limited', 'no_credit', 'invalid_key', 'server', 'model_unavailable', 'context_too_long', 'output_budget', 'request_too_large', 'request'];
const allModelIds = plugins.flatMap((plugin) => plugin.models.map((model) => model.id));
const capitalized = (id: string): string => `${id.charAt(0).toUpperCase()}${id.slice(1)}`;

/** Fails with every problem on its own line, each naming the folder, so a contributor sees what to change. */
function check(plugin: ProviderPlugin, problems: readonly string[]): void {
  if (problems.length > 0) throw new Error(problems.map((problem) => `providers/${plugin.id}: ${problem}`).join('\n'));
}

/** The parts of a sample key that have a format the plugin knows (Cloudflare's api_token, not its account id). */
function formattedParts(plugin: ProviderPlugin, key: string): string[] {
  return key.split(':').filter((part) => plugin.keyPatterns.some((pattern) => new RegExp(`^(?:${pattern.source})`).test(part)));
}

/** Texts an upstream error or a log line could wrap a key in; the redactor must keep everything around it. */
const contexts: ReadonlyArray<(key: string) => string> = [
  (key) => key,
  (key) => `Incorrect API key provided: ${key}. You can find your API key in the dashboard.`,
  (key) => `{"error":{"message":"invalid key '${key}'","code":401}}`,
  (key) => `Authorization: Bearer ${key}\nnext line`,
  (key) => `https://example.test/v1?key=${key}&alt=sse`,
];

describe('provider plugin contract', function () {
  it('the loader finds one plugin per folder, each with id = folder name', function () {
    expect(plugins.map((plugin) => plugin.id)).to.deep.equal(folders);
  });

  it('the combined redactor leaves every catalog model id readable', function () {
    const redact = createRedactor(plugins);
    const problems: string[] = [];
    for (const plugin of plugins) {
      for (const model of plugin.models) {
        const text = `Rate limit reached for model ${plugin.id}/${model.id} (${model.id}).`;
        if (redact(text) !== text) {
          problems.push(`providers/${plugin.id}: model id ${model.id} comes out of the redactor as "${redact(text)}": a key pattern of some plugin matches it (see "no key pattern matches a model id")`);
        }
      }
    }
    if (problems.length > 0) throw new Error(problems.join('\n'));
  });

  for (const plugin of plugins) {
    describe(plugin.id, function () {
      const own: ProviderFixtures | undefined = fixtures.get(plugin.id);
      const sampleKey = own?.sampleKey;

      it('id is the folder name, in lower-case letters and digits', function () {
        check(plugin, /^[a-z][a-z0-9]*$/.test(plugin.id) ? [] : [`id "${plugin.id}" must be lower-case letters and digits, starting with a letter`]);
      });

      it('name is a non-empty string', function () {
        check(plugin, typeof plugin.name === 'string' && plugin.name.trim() !== '' ? [] : ['name must be a non-empty string, the provider\'s name for people']);
      });

      it('header is X-<Id>-Key and no other plugin uses it', function () {
        const problems: string[] = [];
        const expected = `X-${capitalized(plugin.id)}-Key`;
        if (plugin.header !== expected) problems.push(`header is "${plugin.header}"; it must be "${expected}"`);
        const clash = plugins.find((other) => other !== plugin && other.header.toLowerCase() === plugin.header.toLowerCase());
        if (clash) problems.push(`header ${plugin.header} is also providers/${clash.id}'s (header names are case-insensitive)`);
        check(plugin, problems);
      });

      it('baseURL is an https URL without query, fragment or trailing slash', function () {
        const problems: string[] = [];
        let url: URL | undefined;
        try {
          url = new URL(plugin.baseURL);
        } catch {
          problems.push(`baseURL "${plugin.baseURL}" is not a URL`);
        }
        if (url) {
          if (url.protocol !== 'https:') problems.push(`baseURL ${plugin.baseURL} must use https`);
          if (url.search !== '' || url.hash !== '') problems.push(`baseURL ${plugin.baseURL} must have no query string or fragment`);
          if (plugin.baseURL.endsWith('/')) problems.push(`baseURL ${plugin.baseURL} must not end with a slash`);
        }
        check(plugin, problems);
      });

      it('priority is a finite number no other plugin uses', function () {
        const problems: string[] = [];
        if (typeof plugin.priority !== 'number' || !Number.isFinite(plugin.priority)) problems.push(`priority ${String(plugin.priority)} must be a finite number`);
        const clash = plugins.find((other) => other !== plugin && other.priority === plugin.priority);
        if (clash) problems.push(`priority ${plugin.priority} is also providers/${clash.id}'s; alias order must not depend on load order, so pick a free number`);
        check(plugin, problems);
      });

      it('declares models with unique, trimmed ids, known capabilities, a positive integer context window, and well-formed limits and scores', function () {
        const problems: string[] = [];
        if (!Array.isArray(plugin.models) || plugin.models.length === 0) problems.push('models must list at least one model');
        const seen = new Set<string>();
        for (const model of plugin.models ?? []) {
          if (typeof model.id !== 'string' || model.id.trim() === '' || model.id !== model.id.trim()) {
            problems.push(`model id "${String(model.id)}" must be a non-empty string without surrounding spaces`);
          }
          if (seen.has(model.id)) problems.push(`model id ${model.id} is listed twice`);
          seen.add(model.id);
          for (const capability of model.capabilities ?? []) {
            if (!capabilities.includes(capability)) problems.push(`model ${model.id}: capability "${capability}" is not one of ${capabilities.join(', ')}`);
          }
          if (new Set(model.capabilities).size !== (model.capabilities ?? []).length) problems.push(`model ${model.id} repeats a capability`);
          if (!Number.isInteger(model.contextWindow) || model.contextWindow <= 0) {
            problems.push(`model ${model.id}: contextWindow ${String(model.contextWindow)} must be a positive integer (tokens)`);
          }
          if (model.deprecated !== undefined && typeof model.deprecated !== 'boolean') problems.push(`model ${model.id}: deprecated must be true or false`);
          if (model.maxOutputTokens !== undefined && (!Number.isInteger(model.maxOutputTokens) || model.maxOutputTokens <= 0)) {
            problems.push(`model ${model.id}: maxOutputTokens ${String(model.maxOutputTokens)} must be a positive integer (tokens)`);
          }
          if (model.maxRequestTokens !== undefined && (!Number.isInteger(model.maxRequestTokens) || model.maxRequestTokens <= 0)) {
            problems.push(`model ${model.id}: maxRequestTokens ${String(model.maxRequestTokens)} must be a positive integer (tokens)`);
          }
          if (model.quality !== undefined) {
            const { score, source } = model.quality;
            if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 100) problems.push(`model ${model.id}: quality.score ${String(score)} must be a number from 0 to 100 (the index's points)`);
            if (typeof source !== 'string' || !source.startsWith('https://')) problems.push(`model ${model.id}: quality.source must be the benchmark's https page of the model`);
          }
        }
        check(plugin, problems);
      });

      it('keyUrl is an https URL; tier is one of the five, sign-up and anonymous access as declared, each with an https source and the day it was checked', function () {
        const problems: string[] = [];
        if (!/^https:\/\/\S+$/.test(plugin.keyUrl)) problems.push(`keyUrl "${plugin.keyUrl}" is not an https URL`);
        const dated = (what: string, fact: { source: string; checked: string }): void => {
          if (!/^https:\/\/\S+/.test(fact.source)) problems.push(`${what} source "${fact.source}" does not start with an https URL`);
          if (!/^\d{4}-\d{2}-\d{2}$/.test(fact.checked)) problems.push(`${what} checked "${fact.checked}" is not a YYYY-MM-DD day`);
        };
        if (plugin.signUp) {
          if (typeof plugin.signUp.cardRequired !== 'boolean') problems.push('signUp.cardRequired must be true or false');
          dated('signUp', plugin.signUp);
        }
        if (plugin.anonymous) {
          if (plugin.anonymous.limits.trim() === '') problems.push('anonymous.limits must say what the provider allows without a key');
          if (plugin.anonymous.privacy.trim() === '') problems.push('anonymous.privacy must say what the provider does with prompts sent without a key');
          dated('anonymous', plugin.anonymous);
        }
        const tiers = ['free', 'free with limits', 'monthly credit', 'trial credit', 'paid only'];
        if (!tiers.includes(plugin.tier.tier)) problems.push(`tier "${plugin.tier.tier}" is not one of ${tiers.join(', ')}`);
        if (!/^https:\/\/\S+/.test(plugin.tier.source)) problems.push(`tier source "${plugin.tier.source}" does not start with an https URL`);
        if (!/^\d{4}-\d{2}-\d{2}$/.test(plugin.tier.checked)) problems.push(`tier checked "${plugin.tier.checked}" is not a YYYY-MM-DD day`);
        check(plugin, problems);
      });

      it('a retired model is deprecated and says when and where; kinds are chat, embedding or transcription', function () {
        const problems: string[] = [];
        for (const model of plugin.models) {
          if (model.kind !== undefined && !['chat', 'embedding', 'transcription'].includes(model.kind)) problems.push(`model ${model.id}: kind "${model.kind}" is unknown`);
          if (model.retired === undefined) continue;
          if (model.deprecated !== true) problems.push(`model ${model.id}: retired but not deprecated`);
          if (!/^\d{4}-\d{2}-\d{2}$/.test(model.retired.date)) problems.push(`model ${model.id}: retirement date "${model.retired.date}" is not YYYY-MM-DD`);
          if (!/^https:\/\/\S+/.test(model.retired.source)) problems.push(`model ${model.id}: retirement source "${model.retired.source}" does not start with an https URL`);
        }
        check(plugin, problems);
      });

      it('a listing has a recorded answer in fixtures.ts that the plugin reads as documented', function () {
        if (!plugin.listing) return;
        const listing = own?.listing;
        if (!listing) throw new Error(`providers/${plugin.id}: declares a listing but fixtures.ts has no listing (the documented answer and what to read from it)`);
        const problems: string[] = [];
        if (!/^https:\/\/\S+/.test(plugin.listing.source)) problems.push(`listing source "${plugin.listing.source}" does not start with an https URL`);
        if (!/^https:\/\/\S+/.test(listing.source)) problems.push(`listing fixture source "${listing.source}" does not start with an https URL`);
        const url = plugin.listing.url(plugin.baseURL, own?.sampleKey ?? 'key');
        // Derived from the base URL, so that <ID>_BASE_URL moves the listing along with the chat calls.
        const moved = plugin.listing.url('http://127.0.0.1:9/base', own?.sampleKey ?? 'key');
        if (!url.startsWith('https://') || new URL(url).origin !== new URL(plugin.baseURL).origin) problems.push(`listing URL ${url} is not on the base URL's origin ${plugin.baseURL}`);
        if (!moved.startsWith('http://127.0.0.1:9/')) problems.push(`listing URL ${moved} does not follow a base URL override (http://127.0.0.1:9/base)`);
        const read = plugin.listing.read(listing.body).models.map(({ id, kind, free }) => ({ id, kind, free }));
        expect(read, `providers/${plugin.id}: what the plugin reads from its listing fixture`).to.deep.equal(listing.expected);
        check(plugin, problems);
      });

      it('at least one model is not deprecated', function () {
        check(plugin, plugin.models.some((model) => !model.deprecated) ? [] : ['every model is deprecated, so no alias would ever pick this provider']);
      });

      it('the optional parts (checkKey, readQuota, errorRules) have the right types', function () {
        const problems: string[] = [];
        for (const name of ['checkKey', 'readQuota', 'createModel', 'authHeaders'] as const) {
          const value = plugin[name];
          if (value !== undefined && typeof value !== 'function') problems.push(`${name} must be a function`);
        }
        if (typeof plugin.createModel !== 'function') problems.push('createModel is missing');
        if (typeof plugin.authHeaders !== 'function') problems.push('authHeaders is missing');
        for (const rule of plugin.errorRules ?? []) {
          const statuses = typeof rule.status === 'number' ? [rule.status] : rule.status;
          for (const status of statuses) {
            if (!Number.isInteger(status) || status < 400 || status > 599) problems.push(`error rule "${rule.name}": status ${status} is not an HTTP error status`);
          }
          if (!kinds.includes(rule.kind)) problems.push(`error rule "${rule.name}": kind "${rule.kind}" is not one of ${kinds.join(', ')}`);
          if (rule.body && /[gy]/.test(rule.body.flags)) {
            problems.push(`error rule "${rule.name}": body pattern ${rule.body} must not use the g or y flag (test() would remember where it stopped)`);
          }
          if (rule.code !== undefined && !(typeof rule.code === 'string' ? rule.code !== '' : Number.isFinite(rule.code))) {
            problems.push(`error rule "${rule.name}": code must be a non-empty string or a finite number`);
          }
          if (rule.retryAt !== undefined && rule.kind !== 'rate_limited') problems.push(`error rule "${rule.name}": retryAt only applies to rate_limited`);
          if (rule.maxOutputTokens !== undefined && rule.kind !== 'output_budget') problems.push(`error rule "${rule.name}": maxOutputTokens only applies to output_budget`);
        }
        check(plugin, problems);
      });

      it('has providers/<id>/fixtures.ts with a sample key that checkKey (if any) accepts', function () {
        const problems: string[] = [];
        if (!own) problems.push('has no fixtures.ts whose default export is a ProviderFixtures (sampleKey, errors): the tests need a sample key and the documented error answers');
        else if (typeof sampleKey !== 'string' || sampleKey === '') problems.push('fixtures.ts needs a sampleKey: a made-up key in the provider\'s real format');
        else if (plugin.checkKey?.(sampleKey) !== undefined) problems.push(`checkKey refuses the sample key: "${plugin.checkKey?.(sampleKey)}"`);
        check(plugin, problems);
      });

      it('the sample key looks random: no run of 8 of its characters is part of a model id, the name or the header', function () {
        const key = sampleKey ?? '';
        const words = [plugin.name, plugin.header, ...allModelIds].map((word) => word.toLowerCase());
        const problems: string[] = [];
        for (let i = 0; i + 8 <= key.length; i++) {
          const run = key.slice(i, i + 8).toLowerCase();
          const word = words.find((candidate) => candidate.includes(run));
          if (word) {
            problems.push(`the sample key's "${key.slice(i, i + 8)}" is also in "${word}"; Freeway redacts every 8-character run of a request's keys from messages, so the tests would see that word redacted. Make the sample key random-looking`);
            break;
          }
        }
        check(plugin, problems);
      });

      it('key patterns have no flags, never match empty text, and each matches the sample key', function () {
        const problems: string[] = [];
        for (const pattern of plugin.keyPatterns) {
          if (pattern.flags !== '') problems.push(`key pattern ${pattern} must have no flags: the redactor compiles all patterns into one expression`);
          if (new RegExp(`^(?:${pattern.source})$`).test('')) problems.push(`key pattern ${pattern} matches empty text`);
          if (sampleKey !== undefined && !new RegExp(pattern.source).test(sampleKey)) problems.push(`key pattern ${pattern} does not match the sample key ${sampleKey}`);
        }
        check(plugin, problems);
      });

      it('no key pattern matches a model id', function () {
        const problems: string[] = [];
        for (const pattern of plugin.keyPatterns) {
          const compiled = new RegExp(pattern.source);
          const hit = allModelIds.find((id) => compiled.test(id));
          if (hit !== undefined) {
            problems.push(`key pattern ${pattern} also matches model id ${hit}; a key pattern must not match any model id, or model ids would be redacted from messages`);
          }
        }
        check(plugin, problems);
      });

      it('the redactor removes the sample key completely, with and without the request keys', function () {
        if (sampleKey === undefined) throw new Error(`providers/${plugin.id}: no sample key (see the fixtures.ts rule)`);
        const redact = createRedactor(plugins);
        for (const context of contexts) {
          // Given the request's keys (how error bodies are redacted), every provider's key goes, all of it.
          expect(redact(context(sampleKey), [sampleKey]), `providers/${plugin.id}: with the request's keys`).to.equal(context(REDACTED));
          // From the patterns alone (a key an upstream echoes back), the whole formatted part goes, no tail left.
          for (const part of formattedParts(plugin, sampleKey)) {
            expect(redact(context(part)), `providers/${plugin.id}: from the key patterns alone`).to.equal(context(REDACTED));
          }
        }
      });

      it('createModel returns an AI SDK v4 language model for every declared model, without network', async function () {
        const noNetwork: FetchFunction = () => {
          throw new Error('createModel must not call the network');
        };
        for (const spec of plugin.models) {
          const model = await plugin.createModel({ modelId: spec.id, baseURL: plugin.baseURL, fetch: noNetwork });
          const where = `providers/${plugin.id}: createModel(${spec.id})`;
          expect(model.specificationVersion, where).to.equal('v4');
          expect(model.modelId, where).to.equal(spec.id);
          expect(model.provider, where).to.be.a('string');
          expect(model.provider.split('.')[0], `${where}: the model's provider name starts with the id`).to.equal(plugin.id);
          expect(model.doStream, where).to.be.a('function');
          expect(model.doGenerate, where).to.be.a('function');
        }
      });

      it('the model sends its calls through the given fetch, to the given baseURL, with the credential from authHeaders', async function () {
        if (sampleKey === undefined) throw new Error(`providers/${plugin.id}: no sample key (see the fixtures.ts rule)`);
        const spec = plugin.models[0];
        if (!spec) throw new Error(`providers/${plugin.id}: no models`);
        const baseURL = 'https://contract.example.test/base';
        const calls: Array<{ url: string; headers: Headers }> = [];
        const fakeFetch: FetchFunction = async (input, init) => {
          const request = new Request(input, init);
          calls.push({ url: request.url, headers: request.headers });
          return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
        };
        // One model serves every caller: the key comes with each call, never with the model.
        const model = await plugin.createModel({ modelId: spec.id, baseURL, fetch: fakeFetch });
        const otherKey = sampleKey.replace(/[0-9]/g, '7');
        for (const key of [sampleKey, otherKey]) {
          const { stream } = await model.doStream({
            prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
            headers: plugin.authHeaders(key),
          });
          await stream.cancel();
        }
        expect(calls, `providers/${plugin.id}: every call goes through the given fetch`).to.have.length(2);
        calls.forEach((call, i) => {
          const key = i === 0 ? sampleKey : otherKey;
          expect(call.url, `providers/${plugin.id}: the call's URL`).to.equal(`${baseURL}${chatPath(plugin, spec.id, key)}`);
          expectCredential(plugin, key, (name) => call.headers.get(name), call.url);
          const placeholders = [...call.headers.values()].filter((value) => value.includes('per-request'));
          expect(placeholders, `providers/${plugin.id}: no construction-time placeholder key is sent`).to.deep.equal([]);
        });
      });

      it('has documented error rows: each names its source, an HTTP error status and a known kind; rate_limited rows say retryAfter', function () {
        const problems: string[] = [];
        const rows = own?.errors ?? [];
        if (rows.length === 0) problems.push('fixtures.ts lists no errors: add the provider\'s documented error answers (rate limit, invalid key, unknown model, context length)');
        for (const row of rows) {
          const label = `error row "${row.name}"`;
          if (typeof row.source !== 'string' || row.source.trim() === '') problems.push(`${label} must say where its body comes from (source: a documentation URL or page)`);
          if (!Number.isInteger(row.status) || row.status < 400 || row.status > 599) problems.push(`${label}: status ${row.status} is not an HTTP error status`);
          if (!kinds.includes(row.kind)) problems.push(`${label}: kind "${row.kind}" is not one of ${kinds.join(', ')}`);
          if (row.kind === 'rate_limited' && !(Number.isInteger(row.retryAfter) && (row.retryAfter as number) > 0)) {
            problems.push(`${label}: a rate_limited row must give retryAfter, the seconds GET /health reports`);
          }
          if (row.kind !== 'rate_limited' && row.retryAfter !== undefined) problems.push(`${label}: only rate_limited rows have a retryAfter`);
        }
        check(plugin, problems);
      });
    });
  }

  it('cloudflare: checkKey rejects a value without account_id: and never repeats it', function () {
    const cloudflare = plugins.find((plugin) => plugin.id === 'cloudflare');
    if (!cloudflare?.checkKey) throw new Error('cloudflare has no checkKey');
    for (const value of ['CFtestTokenOnlyNoAccount_123456', ':CFtokenWithoutAccount_1234', 'account0123456789:']) {
      const problem = cloudflare.checkKey(value);
      expect(problem, value).to.be.a('string');
      expect(problem).to.include('X-Cloudflare-Key');
      expect(problem).to.include('account_id:api_token');
      for (const part of value.split(':').filter(Boolean)) expect(problem).to.not.include(part);
    }
  });
});
