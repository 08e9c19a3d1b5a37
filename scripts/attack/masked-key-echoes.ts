/**
 * Attack: every provider answers a bad key with an error that echoes it
 * masked, the way OpenAI-compatible APIs do (`Incorrect API key provided:
 * 7xW1RA4cMNeuoNZm********FRWP`), plus a middle stretch in upper case. The
 * requests go pinned and through `free:auto` (whose 502 lists the skipped keys
 * with their stored reasons), then /health. Holds when no run of 8 characters
 * of any key sent appears in any answer body or header, or in Freeway's log.
 *
 *   node scripts/attack/masked-key-echoes.ts
 */
import { randomBytes } from 'node:crypto';
import { buildCatalog } from '../../catalog/catalog.ts';
import { loadProviderPlugins } from '../../providers/loader.ts';
import { json, startUpstream, type SeenRequest } from '../../test/support/upstream.ts';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';

export interface MaskedKeyEchoesOptions {
  /** Rounds of requests per provider (3). */
  readonly rounds: number;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: MaskedKeyEchoesOptions = { rounds: 3 };

/** A random key of `length` letters and digits, with no format any pattern knows. */
function randomKey(length: number): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/** The key an upstream was sent: a bearer token, or Google's header. */
function sentKey(request: SeenRequest): string {
  const auth = request.headers.authorization;
  if (typeof auth === 'string') return auth.replace(/^Bearer /, '');
  return String(request.headers['x-goog-api-key'] ?? '');
}

/** Every run of 8 characters of `key` (and of each `:`-separated part) found in `text`, in any case. */
function fragments(text: string, key: string): number {
  const lower = text.toLowerCase();
  let found = 0;
  for (let i = 0; i + 8 <= key.length; i++) if (lower.includes(key.slice(i, i + 8).toLowerCase())) found += 1;
  return found;
}

export async function run(options: Partial<MaskedKeyEchoesOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  const plugins = await loadProviderPlugins();
  const catalog = buildCatalog(plugins);
  const upstream = await startUpstream((request, res) => {
    const key = sentKey(request);
    const mask = `${key.slice(0, 16)}********${key.slice(-4)} (${key.slice(6, 20).toUpperCase()})`;
    json(res, 401, { error: { message: `Incorrect API key provided: ${mask}`, type: 'invalid_request_error', code: 'invalid_api_key' } });
  });
  const env = Object.fromEntries(plugins.map((plugin) => [`${plugin.id.toUpperCase()}_BASE_URL`, upstream.url]));
  const freeway = await startFreewayChild({ ...env, LOG_LEVEL: 'info', RATE_LIMIT_MAX: '100000' }, opts.root, true);

  const keys = new Map<string, string>();
  for (const plugin of plugins) {
    keys.set(plugin.id, plugin.id === 'cloudflare' ? `${randomBytes(16).toString('hex')}:${randomKey(40)}` : randomKey(40));
  }
  const texts: string[] = [];
  const statuses = new Map<number, number>();
  async function send(path: string, init: RequestInit): Promise<void> {
    try {
      const response = await fetch(`${freeway.url}${path}`, init);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      texts.push([...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n'), await response.text());
    } catch {
      statuses.set(0, (statuses.get(0) ?? 0) + 1);
    }
  }

  let requests = 0;
  for (let round = 0; round < opts.rounds; round++) {
    for (const plugin of plugins) {
      const key = keys.get(plugin.id) as string;
      const headers = { 'content-type': 'application/json', [plugin.header]: key };
      const model = catalog.models.find((entry) => entry.provider.id === plugin.id && !entry.spec.deprecated);
      for (const target of [model?.id, 'free:auto']) {
        if (!target) continue;
        requests += 1;
        await send('/v1/chat/completions', { method: 'POST', headers, body: JSON.stringify({ model: target, messages: [{ role: 'user', content: 'hi' }] }) });
      }
    }
  }
  await send('/health', { headers: Object.fromEntries(plugins.map((plugin) => [plugin.header, keys.get(plugin.id) as string])) });
  // Let the last log lines reach the pipe.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const log = freeway.log();
  await freeway.stop();
  await upstream.close();

  const everything = `${texts.join('\n')}\n${log}`;
  let inAnswers = 0;
  let inLog = 0;
  for (const key of keys.values()) {
    inAnswers += fragments(texts.join('\n'), key);
    inLog += fragments(log, key);
  }
  const echoes = upstream.requests.length;
  return {
    name: 'masked-key-echoes',
    held: inAnswers === 0 && inLog === 0 && echoes > 0 && everything.length > 0,
    figures: {
      providers: plugins.length,
      requests,
      upstreamEchoes: echoes,
      statuses: [...statuses].map(([status, count]) => `${status}:${count}`).join(' '),
      keyFragmentsInAnswers: inAnswers,
      keyFragmentsInLog: inLog,
      logLines: log.split('\n').filter(Boolean).length,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await run();
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
