import type { ServerResponse } from 'node:http';
import type { ErrorFixture, ProviderPlugin } from '../../providers/types.ts';
import { providerFixtures, providerPlugins } from './plugins.ts';
import { testKeys } from './keys.ts';
import { json, type SeenRequest } from './upstream.ts';

/*
 * Plugins for the key-check tests: the discovered plugins, each checked as its own
 * `listing` or `keyCheck` says (OpenRouter at its key endpoint, since its listing
 * answers any key), and one of them, Cohere, stripped of both, to stand for a
 * provider that documents no call a key can be checked with.
 */
const additions: Readonly<Record<string, Partial<ProviderPlugin>>> = {
  cohere: { listing: undefined, keyCheck: undefined },
};

/** Providers whose keys the tests check. */
export const CHECKABLE = ['groq', 'google', 'openrouter'];

export async function checkablePlugins(): Promise<ProviderPlugin[]> {
  return (await providerPlugins()).map((plugin) => ({ ...plugin, ...additions[plugin.id] }) as ProviderPlugin);
}

/** A key of `provider`'s format that the fake provider answers as `behaviour`: the sample key with its last four characters changed. */
export type Behaviour = 'good' | 'invalid' | 'no_credit' | 'busy' | 'down';
const marks: Readonly<Record<Behaviour, string>> = { good: 'Gq7d', invalid: 'Iv3k', no_credit: 'Nc5r', busy: 'Bz2y', down: 'Dn8w' };

export function keyFor(provider: string, behaviour: Behaviour): string {
  const sample = testKeys[provider];
  if (!sample) throw new Error(`no sample key for ${provider}`);
  return sample.slice(0, -4) + marks[behaviour];
}

function behaviourOf(req: SeenRequest): Behaviour | undefined {
  const auth = String(req.headers.authorization ?? req.headers['x-goog-api-key'] ?? '');
  const mark = auth.slice(-4);
  return (Object.keys(marks) as Behaviour[]).find((behaviour) => marks[behaviour] === mark);
}

async function documentedError(provider: string, name: RegExp): Promise<ErrorFixture> {
  const found = (await providerFixtures()).get(provider)?.errors.find((fixture) => name.test(fixture.name));
  if (!found) throw new Error(`providers/${provider}/fixtures.ts has no error fixture matching ${name}`);
  return found;
}

/** What each provider answers a key check with, from its documentation. */
export async function keyCheckAnswers(): Promise<(provider: string, req: SeenRequest, res: ServerResponse) => boolean> {
  const invalid: Record<string, ErrorFixture> = {
    groq: await documentedError('groq', /^invalid API key/),
    google: await documentedError('google', /API_KEY_INVALID/),
    openrouter: await documentedError('openrouter', /^invalid API key/),
  };
  const busy: Record<string, ErrorFixture> = {
    groq: await documentedError('groq', /per-minute request limit/),
    google: await documentedError('google', /per-minute quota/),
    openrouter: await documentedError('openrouter', /per-minute free-model limit/),
  };
  // https://openrouter.ai/docs/api-reference/errors (read 2026-11-25): "402: Your account or API key has insufficient credits".
  const noCredit = { status: 402, body: { error: { code: 402, message: 'Insufficient credits. Add more using https://openrouter.ai/settings/credits' } } };
  return (provider, req, res) => {
    const behaviour = behaviourOf(req);
    if (behaviour === undefined) return false;
    if (behaviour === 'good') {
      if (provider === 'openrouter' && req.path.endsWith('/key')) {
        // The documented answer of GET /api/v1/key.
        json(res, 200, { data: { label: 'sk-or-v1-0e6...1c9', limit: null, limit_reset: null, limit_remaining: null, usage: 0, is_free_tier: true } });
      } else if (provider === 'google') {
        json(res, 200, { models: [{ name: 'models/gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', inputTokenLimit: 1048576 }] });
      } else {
        json(res, 200, { object: 'list', data: [{ id: 'llama-3.1-8b-instant', object: 'model', created: 1, owned_by: 'Meta' }] });
      }
      return true;
    }
    if (behaviour === 'down') {
      json(res, 503, { error: { message: 'Service Unavailable', type: 'server_error' } });
      return true;
    }
    const fixture = behaviour === 'invalid' ? invalid[provider] : behaviour === 'busy' ? busy[provider] : noCredit;
    if (!fixture) return false;
    json(res, fixture.status, fixture.body, 'headers' in fixture && fixture.headers ? { ...fixture.headers } : {});
    return true;
  };
}
