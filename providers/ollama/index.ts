import { bearerAuth, kindFromId, openAICompatibleModel, openAIModelListing } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';
import { intelligenceIndex } from '../quality.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Session windows are five hours long and sit on a fixed grid: they end whenever epoch seconds are a multiple of 18,000. */
const SESSION_MS = 5 * HOUR_MS;
/** 1970-01-01 was a Thursday: Mondays 00:00 UTC are 4 days past a multiple of 7 days. */
const MONDAY_OFFSET_MS = 4 * DAY_MS;
const WEEK_MS = 7 * DAY_MS;

/** The end of the five-hour session window `now` falls in. */
export function sessionWindowEnd(now: number): number {
  return Math.floor(now / SESSION_MS) * SESSION_MS + SESSION_MS;
}

/** The next Monday 00:00 UTC after `now`, when the weekly window starts again. */
export function nextWeeklyReset(now: number): number {
  return Math.floor((now - MONDAY_OFFSET_MS) / WEEK_MS) * WEEK_MS + WEEK_MS + MONDAY_OFFSET_MS;
}

/**
 * The models a free account can call, by id as GET /v1/models names them. Ollama says only that Free includes "a
 * starter amount of usage for a smaller set of starter models" (https://ollama.com/pricing); the set comes from a
 * test of every listed model with a Free key (tashfeenahmed/freellmapi#767, 2026-08-06: these answer 200, the
 * DeepSeek V4, GLM 5.x, Kimi, MiniMax M2.7, Mistral Large 3 and Qwen 3.5 397B models answer 403 "this model
 * requires a subscription") and a free account's usage on gpt-oss:120b after the change of plans
 * (decolua/9router#4150, 2026-09-18). Checked 2026-11-27. Ids, context windows and capabilities as GET /v1/models and
 * /api/show reported them on 2026-09-03 (fgrehm/pi-ollama-cloud, models.generated.ts: every model there takes tools;
 * "thinking" is reasoning, "vision" image input). The output maximum is not documented (the API refuses a larger
 * max_tokens): Freeway learns it from that answer. Alias order follows this list.
 */
const starterModels: ProviderPlugin['models'] = [
  // reasoning_effort low/medium/high; gpt-oss cannot turn thinking off (fgrehm/pi-ollama-cloud README).
  { id: 'gpt-oss:120b', quality: intelligenceIndex(24.1, 'gpt-oss-120b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 131_072, reasoningEffort: true },
  { id: 'gemma4:31b', quality: intelligenceIndex(29.7, 'gemma-4-31b'), capabilities: ['reasoning', 'vision', 'tool-use', 'long-context'], contextWindow: 262_144 },
  { id: 'nemotron-3-super', quality: intelligenceIndex(25.7, 'nvidia-nemotron-3-super-120b-a12b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262_144 },
  { id: 'nemotron-3-ultra', quality: intelligenceIndex(38.3, 'nvidia-nemotron-3-ultra-550b-a55b'), capabilities: ['reasoning', 'tool-use', 'long-context'], contextWindow: 262_144 },
  { id: 'minimax-m3', quality: intelligenceIndex(45.4, 'minimax-m3'), capabilities: ['reasoning', 'vision', 'tool-use', 'long-context'], contextWindow: 512_000 },
  { id: 'gpt-oss:20b', quality: intelligenceIndex(15.2, 'gpt-oss-20b'), capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 131_072, reasoningEffort: true },
  { id: 'nemotron-3-nano:30b', quality: intelligenceIndex(7.2, 'nvidia-nemotron-3-nano-30b-a3b'), capabilities: ['fast', 'reasoning', 'tool-use', 'long-context'], contextWindow: 262_144 },
];

/** Nothing but the starter models joins an alias, whatever a key's listing holds. */
const starterIds = new Set(starterModels.map((model) => model.id));

const ollama: ProviderPlugin = {
  id: 'ollama',
  name: 'Ollama Cloud',
  header: 'X-Ollama-Key',
  // Ollama does not document its API key format: nothing is matched by pattern; the request's own keys are redacted.
  keyPatterns: [],
  // "Direct cloud inference at https://ollama.com/api and https://ollama.com/v1 requires an API key"
  // (https://docs.ollama.com/api/authentication, read 2026-11-27); /v1 is the OpenAI-compatible API
  // (https://docs.ollama.com/api/openai-compatibility).
  baseURL: 'https://ollama.com/v1',
  keyUrl: 'https://ollama.com/settings/keys',
  // Since the plans of 2026-08-31 (https://ollama.com/blog/transparent-pricing), usage is billed in tokens at each
  // model's dollar rates against the plan's usage credits. Free: "Starter usage credits included", "Includes access to
  // starter models", "On the Free plan, usage resets monthly from the date you signed up", "unused included usage"
  // does not roll over, "Free includes 1 concurrent request" (the pricing page as saved on 2026-08-31 in
  // srnoob2570/ollama-cloud-pricing-bench, docs/research/pricing-snapshot). The 5-hour and weekly limits of the old
  // plans "no longer apply"; free accounts now report one monthly window (decolua/9router#4150, 2026-09-18). The
  // amount of the starter credit is not published.
  tier: { tier: 'monthly credit', source: 'https://ollama.com/pricing', checked: '2026-11-27' },
  // The Free plan needs an account, no payment method (tashfeenahmed/freellmapi#41, 2026-05-18; the catalog of
  // xyzs996/free-llm-api of 2026-07-25: "Card: Not required"). Extra usage credits are optional on every plan.
  signUp: { cardRequired: false, source: 'https://github.com/tashfeenahmed/freellmapi/pull/41', checked: '2026-11-27' },
  // GET /v1/models (https://docs.ollama.com/api/openai-compatibility) lists every cloud model, whatever the key's
  // plan: only the starter models are free. It answers without a key (fgrehm/pi-ollama-cloud's README:
  // "the /v1/models and /api/show endpoints are public"), so a key check through it may call a wrong key valid;
  // Ollama documents no call that checks a key without spending usage.
  listing: openAIModelListing('https://docs.ollama.com/api/openai-compatibility', (entry) => ({ id: entry.id, kind: kindFromId(entry.id), free: starterIds.has(entry.id) })),
  priority: 95,
  models: starterModels,
  authHeaders: bearerAuth,
  // The answers as users quote them; the rows are in fixtures.ts. No rate-limit headers are sent
  // (can1357/oh-my-pi#11739: "The chat endpoint itself carries no x-ratelimit-* / retry-after headers").
  errorRules: [
    // Plans from before 2026-08-31 keep 5-hour session and weekly windows. The windows sit on fixed boundaries, as
    // matched against the settings page's reset times (Sarrius/pi-multi-account#30, from ollama/ollama#12532; both read
    // 2026-11-27). The hourly limit's message as users quote it: continuedev/continue#9233; its wait, an hour, is the window its name gives.
    { name: 'session usage limit', status: 429, body: /session usage limit/, kind: 'rate_limited', retryAt: (_answer, now) => sessionWindowEnd(now) },
    { name: 'weekly usage limit', status: 429, body: /weekly usage limit/, kind: 'rate_limited', retryAt: (_answer, now) => nextWeeklyReset(now) },
    { name: 'hourly usage limit', status: 429, body: /hourly usage limit/, kind: 'rate_limited', retryAt: (_answer, now) => now + HOUR_MS },
    // A model outside the key's plan: the key itself is fine and keeps serving the starter models.
    { name: 'model needs a subscription', status: 403, body: /requires a subscription/, kind: 'model_unavailable' },
    { name: 'model billed to extra usage only', status: 402, body: /extra usage only/, kind: 'model_unavailable' },
    { name: 'unauthorized', status: 401, kind: 'invalid_key' },
  ],
  createModel: (options) => openAICompatibleModel('ollama', options),
};

export default ollama;
