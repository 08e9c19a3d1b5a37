/**
 * Attack: live model lists per key. Many clients (each its own loopback
 * address) send `GET /v1/models` with a fresh random Groq key every time, so
 * every request names a key whose list Freeway would fetch from the provider;
 * another client sends keys whose listing answers never, without end (past
 * MODELS_LISTING_MAX_BYTES), page after page (Gemini's nextPageToken) or
 * malformed, each ten times at once. Meanwhile an honest client on its own
 * address sends `free:auto` chat requests with a good key.
 *
 * Holds when: no client starts more than LISTINGS_PER_MINUTE listings in a
 * minute; no key has two listings at once and each bad key is listed once
 * (pages within MODELS_LISTING_MAX_PAGES); more keys were listed than
 * MODELS_MAX_KEYS holds, yet peak RSS stays within `maxRssMb`; every request
 * is answered, the honest client's all with 200; and no listing is still
 * running at the provider once the flood is over.
 *
 *   node scripts/attack/listing-flood.ts [attackers] [keysPerAttacker]
 */
import type { ServerResponse } from 'node:http';
import { loadProviderPlugins } from '../../providers/loader.ts';
import { json, openAIText, type SeenRequest } from '../../test/support/upstream.ts';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';
import { agentFrom, alnum, honestChat, latencies, send, sleep, startUpstream, type Answer } from './upstreams.ts';

export interface ListingFloodOptions {
  /** Flooding clients, each from its own address 127.0.1.x (40). */
  readonly attackers: number;
  /** Requests per flooding client, each with a new key (60: twice LISTINGS_PER_MINUTE). */
  readonly keysPerAttacker: number;
  /** Requests a flooding client has under way at once (6). */
  readonly concurrency: number;
  /** Models in the listing of each flooding key (400, about 36 kB of JSON). */
  readonly modelsPerListing: number;
  /** Keys of each bad kind (slow, huge, endless pages, malformed: 4) and requests sent at once with each (10). */
  readonly badKeys: number;
  readonly badRepeats: number;
  /** Freeway's settings for the run: small, so that the bounds are reached. */
  readonly maxKeys: number;
  readonly maxBytesMb: number;
  readonly listingsPerMinute: number;
  readonly listingTimeoutMs: number;
  readonly listingMaxKb: number;
  readonly listingMaxPages: number;
  /** How long the honest client runs alone before the flood (2 s). */
  readonly beforeMs: number;
  /**
   * V8's old generation for the child, in MB (128, `--max-old-space-size`): garbage is then
   * collected rather than kept, so RSS follows what Freeway holds, and a process that held
   * every list would die of it (with the bounds lifted, MODELS_MAX_KEYS=1000000 and
   * MODELS_MAX_BYTES=4gb, this flood killed it, out of memory, after 480 keys).
   */
  readonly heapMb: number;
  /** The bound that must hold; by default RSS before the flood plus 6 x MODELS_MAX_BYTES (lists and shared records, as counted and as held) plus 96 MB for garbage not yet collected. */
  readonly maxRssMb?: number;
  readonly env: Record<string, string>;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: ListingFloodOptions = {
  attackers: 40,
  keysPerAttacker: 60,
  concurrency: 6,
  modelsPerListing: 400,
  badKeys: 4,
  badRepeats: 10,
  maxKeys: 500,
  maxBytesMb: 8,
  listingsPerMinute: 30,
  listingTimeoutMs: 3_000,
  listingMaxKb: 256,
  listingMaxPages: 10,
  beforeMs: 2_000,
  heapMb: 128,
  env: {},
};

type Kind = 'flood' | 'slow' | 'huge' | 'paged' | 'malformed' | 'honest';

/** Keys say what they are, so that the fake provider knows how to answer them. */
const keyOf = (kind: Kind, tag: string | number = ''): string =>
  kind === 'paged' ? `AIzaPAGED${tag}z${alnum(24)}` : `gsk_${kind}${tag}z${alnum(24)}`;
const kindOf = (key: string): Kind => {
  if (key.startsWith('AIzaPAGED')) return 'paged';
  const match = /^gsk_(flood|slow|huge|malformed|honest)/.exec(key);
  return (match?.[1] ?? 'flood') as Kind;
};
/** The client that sent a key, as Freeway counts it (each sends from its own address). */
const clientOf = (key: string): string => {
  const flood = /^gsk_flood(\d+)z/.exec(key);
  if (flood) return `flood ${flood[1]}`;
  return kindOf(key) === 'honest' ? 'honest' : 'bad keys';
};

/** The key a listing was asked with: Groq's bearer token or Gemini's header. */
function sentKey(req: SeenRequest): string {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') return auth.replace(/^Bearer /, '');
  return String(req.headers['x-goog-api-key'] ?? '');
}

function floodListing(count: number): string {
  const data = Array.from({ length: count }, (_, i) => ({
    id: `flood-lab/model-${String(i).padStart(4, '0')}-instruct-preview`,
    object: 'model',
    created: 1_760_000_000,
    owned_by: 'flood-lab',
    active: true,
    context_window: 131_072,
  }));
  return JSON.stringify({ object: 'list', data });
}

const malformedBodies = ['{"object":"list","data":[{"id":"cut', '{"object":"list","data":"none"}', '{"object":"list","data":[{"id":"a model, with spaces","object":"model"}]}'];

export async function run(options: Partial<ListingFloodOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  const plugins = await loadProviderPlugins();
  const groq = plugins.find((plugin) => plugin.id === 'groq');
  if (!groq) throw new Error('the groq plugin is missing');
  const floodBody = floodListing(opts.modelsPerListing);
  const honestBody = JSON.stringify({
    object: 'list',
    data: groq.models.filter((model) => !model.deprecated).map((model) => ({ id: model.id, object: 'model', created: 1, owned_by: 'groq', active: true, context_window: model.contextWindow })),
  });

  // Every listing call the provider got; `first`: the first page, where a listing starts.
  const listings: Array<{ key: string; at: number; first: boolean }> = [];
  const open = new Map<string, number>();
  let maxOpenPerKey = 0;
  let inFlight = 0;
  let hugeBytes = 0;
  let floodBytes = 0;
  const upstream = await startUpstream(async (req, res) => {
    if (req.method === 'POST') {
      openAIText(res, 'Hello', req);
      return;
    }
    const key = sentKey(req);
    listings.push({ key, at: Date.now(), first: !req.path.includes('pageToken=') });
    open.set(key, (open.get(key) ?? 0) + 1);
    maxOpenPerKey = Math.max(maxOpenPerKey, open.get(key) as number);
    inFlight += 1;
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    void closed.then(() => {
      inFlight -= 1;
      open.set(key, (open.get(key) as number) - 1);
    });
    await answerListing(key, req, res, closed);
  });

  async function answerListing(key: string, req: SeenRequest, res: ServerResponse, closed: Promise<void>): Promise<void> {
    const kind = kindOf(key);
    if (kind === 'flood') {
      floodBytes += floodBody.length;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(floodBody) }).end(floodBody);
    } else if (kind === 'honest') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(honestBody) }).end(honestBody);
    } else if (kind === 'slow') {
      await closed;
    } else if (kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(malformedBodies[Number(/^gsk_malformed(\d+)/.exec(key)?.[1] ?? 0) % malformedBodies.length]);
    } else if (kind === 'paged') {
      const page = Number(/pageToken=p(\d+)/.exec(req.path)?.[1] ?? 0);
      json(res, 200, { models: [{ name: `models/gemma-4-page-${page}`, supportedGenerationMethods: ['generateContent'] }], nextPageToken: `p${page + 1}` });
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"object":"list","data":[');
      const piece = '{"id":"huge","object":"model"},'.repeat(2048);
      let gone = false;
      void closed.then(() => {
        gone = true;
      });
      while (!gone && hugeBytes < 2 ** 30) {
        hugeBytes += piece.length;
        if (!res.write(piece)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      }
    }
  }

  const freeway = await startFreewayChild(
    {
      MODELS_LIVE: 'on',
      GROQ_BASE_URL: upstream.url,
      GOOGLE_BASE_URL: upstream.url,
      MODELS_MAX_KEYS: String(opts.maxKeys),
      MODELS_MAX_BYTES: `${opts.maxBytesMb}mb`,
      LISTINGS_PER_MINUTE: String(opts.listingsPerMinute),
      MODELS_LISTING_TIMEOUT_MS: String(opts.listingTimeoutMs),
      MODELS_LISTING_MAX_BYTES: `${opts.listingMaxKb}kb`,
      MODELS_LISTING_MAX_PAGES: String(opts.listingMaxPages),
      RATE_LIMIT_MAX: '1000000',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${opts.heapMb}`.trim(),
      ...opts.env,
    },
    opts.root,
  );

  // The honest client, from 127.0.0.2 with one good key, whose first request has its key listed.
  const honestKey = keyOf('honest');
  const first = agentFrom('127.0.0.2', 1);
  await send(first, freeway.port, 'POST', '/v1/chat/completions', { 'content-type': 'application/json', 'x-groq-key': honestKey }, JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: 'hi' }] }));
  first.destroy();
  const honest = honestChat(freeway.port, honestKey);
  await sleep(opts.beforeMs);

  const baselineMb = freeway.rssMb();
  const maxRssMb = opts.maxRssMb ?? Math.round(baselineMb + 6 * opts.maxBytesMb + 96);
  freeway.resetPeak();
  const floodStarted = performance.now();
  const statuses = new Map<number, number>();
  const count = (answer: Answer): void => {
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  };

  const attackers = Array.from({ length: opts.attackers }, async (_, client) => {
    const agent = agentFrom(`127.0.1.${client + 1}`, opts.concurrency);
    let next = 0;
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (next < opts.keysPerAttacker) {
          next += 1;
          count(await send(agent, freeway.port, 'GET', '/v1/models', { 'x-groq-key': keyOf('flood', client) }));
        }
      }),
    );
    agent.destroy();
  });
  const badAgent = agentFrom('127.0.2.1', opts.badKeys * 4 * opts.badRepeats);
  const badKeys = (['slow', 'huge', 'paged', 'malformed'] as const).flatMap((kind) => Array.from({ length: opts.badKeys }, (_, i) => keyOf(kind, kind === 'malformed' ? i : '')));
  const bad = badKeys.flatMap((key) =>
    Array.from({ length: opts.badRepeats }, async () => {
      const header: Record<string, string> = key.startsWith('AIza') ? { 'x-google-key': key } : { 'x-groq-key': key };
      count(await send(badAgent, freeway.port, 'GET', '/v1/models', header));
    }),
  );
  await Promise.all([...attackers, ...bad]);
  const floodEnded = performance.now();
  badAgent.destroy();
  const peakMb = freeway.peakRssMb();

  await sleep(1_000);
  await honest.stop();
  // Whatever listing Freeway still runs ends within its page timeout.
  await sleep(opts.listingTimeoutMs + 500);
  const stillListing = inFlight;
  const afterMb = freeway.rssMb();
  const survived = freeway.alive();
  await freeway.stop();
  await upstream.close();

  // Listings started per client and minute, as Freeway counts them.
  const perClientMinute = new Map<string, number>();
  for (const { key, at, first } of listings) {
    if (!first) continue;
    const window = `${clientOf(key)}|${Math.floor(at / 60_000)}`;
    perClientMinute.set(window, (perClientMinute.get(window) ?? 0) + 1);
  }
  const maxPerClientMinute = Math.max(0, ...perClientMinute.values());
  const listedOf = (kind: Kind): typeof listings => listings.filter((listing) => kindOf(listing.key) === kind);
  const keysListed = (kind: Kind): number => new Set(listedOf(kind).map((listing) => listing.key)).size;
  /** The most listings (first pages) one key of `kind` got. */
  const listingsPerKey = (kind: Kind): number => {
    const calls = new Map<string, number>();
    for (const { key, first } of listedOf(kind)) if (first) calls.set(key, (calls.get(key) ?? 0) + 1);
    return Math.max(0, ...calls.values());
  };
  const pagedListings = listedOf('paged').filter((listing) => listing.first).length;
  const pagesPerListing = pagedListings === 0 ? 0 : listedOf('paged').length / pagedListings;
  const floodKeysListed = keysListed('flood');
  const before = honest.between(0, floodStarted);
  const during = honest.between(floodStarted, floodEnded);
  const honestFailed = honest.failed();
  const unanswered = statuses.get(0) ?? 0;

  const held =
    survived &&
    maxPerClientMinute <= opts.listingsPerMinute &&
    maxOpenPerKey <= 1 &&
    pagesPerListing <= opts.listingMaxPages &&
    floodKeysListed > opts.maxKeys &&
    peakMb < maxRssMb &&
    unanswered === 0 &&
    honestFailed === 0 &&
    during.length > 0 &&
    stillListing === 0;
  return {
    name: 'listing-flood',
    held,
    figures: {
      settings: `--max-old-space-size=${opts.heapMb} MODELS_MAX_KEYS=${opts.maxKeys} MODELS_MAX_BYTES=${opts.maxBytesMb}mb LISTINGS_PER_MINUTE=${opts.listingsPerMinute} MODELS_LISTING_TIMEOUT_MS=${opts.listingTimeoutMs} MODELS_LISTING_MAX_BYTES=${opts.listingMaxKb}kb MODELS_LISTING_MAX_PAGES=${opts.listingMaxPages}`,
      floodClients: opts.attackers,
      floodRequests: opts.attackers * opts.keysPerAttacker,
      badKeyRequests: badKeys.length * opts.badRepeats,
      answers: [...statuses].map(([status, n]) => `${status}:${n}`).join(' '),
      floodSeconds: ((floodEnded - floodStarted) / 1000).toFixed(1),
      upstreamListingCalls: listings.length,
      floodKeysListed,
      floodListedMb: (floodBytes / 1048576).toFixed(1),
      maxListingsPerClientMinute: maxPerClientMinute,
      maxListingsAtOncePerKey: maxOpenPerKey,
      maxListingsPerSlowKey: listingsPerKey('slow'),
      maxListingsPerHugeKey: listingsPerKey('huge'),
      hugeMbWrittenByUpstream: (hugeBytes / 1048576).toFixed(1),
      maxListingsPerPagedKey: listingsPerKey('paged'),
      pagesPerPagedListing: pagesPerListing.toFixed(1),
      maxListingsPerMalformedKey: listingsPerKey('malformed'),
      listingsRunningAfter: stillListing,
      baselineRssMb: Math.round(baselineMb),
      peakRssMb: Math.round(peakMb),
      rssAfterMb: Math.round(afterMb),
      maxRssMb,
      honestBefore: latencies(before),
      honestDuring: latencies(during),
      honestNot200: honestFailed,
      processSurvived: survived ? 'yes' : 'no',
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const attackers = process.argv[2] ? Number(process.argv[2]) : undefined;
  const keysPerAttacker = process.argv[3] ? Number(process.argv[3]) : undefined;
  const result = await run({ ...(attackers ? { attackers } : {}), ...(keysPerAttacker ? { keysPerAttacker } : {}) });
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
