import type { EmbeddingModelV4, JSONObject, LanguageModelV4, TranscriptionModelV4 } from '@ai-sdk/provider';
import type { QualityScore } from './quality.ts';

/**
 * What a model can be picked for. Each one but `long-context` and `pdf` names an
 * alias `free:<capability>`; `pdf` (takes PDF documents as input) only narrows an
 * alias for requests that carry a PDF.
 */
export type Capability = 'fast' | 'reasoning' | 'long-context' | 'vision' | 'tool-use' | 'pdf';

/**
 * What calls a model takes. Chat models serve the three chat APIs; an embedding
 * model only `/v1/embeddings`, a transcription model only `/v1/audio/transcriptions`.
 * A request never goes to a model of another kind.
 */
export type ModelKind = 'chat' | 'embedding' | 'transcription';

/**
 * How a provider's own pages describe what a free key gets: `monthly credit` is a money
 * allowance that renews (every month, every 30 days), `trial credit` one that does not.
 */
export type Tier = 'free' | 'free with limits' | 'monthly credit' | 'trial credit' | 'paid only';

/** A provider's tier, with the page that says so and the day it was read. */
export interface TierInfo {
  readonly tier: Tier;
  /** The provider's page (or a public thread quoting it) that states the tier. */
  readonly source: string;
  /** The day the source was read, `YYYY-MM-DD`. */
  readonly checked: string;
}

/** How a person gets a key, as the provider's sign-up page says. */
export interface SignUp {
  /** Whether sign-up asks for a payment card. */
  readonly cardRequired: boolean;
  /** The page (or a public thread quoting it) that says so. */
  readonly source: string;
  /** The day the source was read, `YYYY-MM-DD`. */
  readonly checked: string;
}

/**
 * Calls without any key, where the provider documents them. A caller asks for them with the
 * header value `anonymous`; the limits then belong to the address of the Freeway instance.
 */
export interface AnonymousAccess {
  /** The provider's limits on calls without a key, in words: `2 requests a minute per IP address and model`. */
  readonly limits: string;
  /** What the provider does with the prompts of such calls, in words. */
  readonly privacy: string;
  /** The page that documents calls without a key. */
  readonly source: string;
  /** The day the source was read, `YYYY-MM-DD`. */
  readonly checked: string;
}

/** When and where a provider said a model was retired. */
export interface Retirement {
  /** `YYYY-MM-DD`. */
  readonly date: string;
  readonly source: string;
}

export interface ModelSpec {
  /** The provider's own model id; may contain `/`, `@` and `:`. */
  readonly id: string;
  readonly capabilities: readonly Capability[];
  /** Context window in tokens. */
  readonly contextWindow: number;
  /** `chat` when absent. */
  readonly kind?: ModelKind;
  /** Still listed and pinnable, never picked by an alias. */
  readonly deprecated?: boolean;
  /** With `deprecated`: when and where the provider retired the model. */
  readonly retired?: Retirement;
  /**
   * Takes the AI SDK's `reasoning` call option (an effort level), which the
   * provider's SDK turns into its own setting. Freeway sends it only to these
   * models: elsewhere an unknown reasoning field can make the upstream refuse.
   */
  readonly reasoningEffort?: boolean;
  /**
   * The most output tokens the model takes in one answer, as the provider documents it
   * (cite the page in a comment). A request asking for more (`max_tokens`,
   * `max_completion_tokens`, `max_output_tokens`) is sent with this instead: the
   * caller's budget is an upper bound. Absent: Freeway learns it from the first
   * upstream 400 that states it.
   */
  readonly maxOutputTokens?: number;
  /**
   * The model's score on the one benchmark that ranks alias candidates (providers/quality.ts: its
   * name, version and the day read), with the benchmark's page of the model. Absent when the
   * benchmark does not score the model: such models are tried after the scored ones.
   */
  readonly quality?: QualityScore;
  /**
   * The most tokens one request may hold (its input and output budget together) on a new key, where
   * the provider's rate-limit page states a per-minute token budget that bounds a single request
   * (Groq's TPM): cite the page and the day in a comment. A request estimated larger is not sent to
   * the model; a budget that does not fit beside the input is ordered after the candidates it fits,
   * but still tried when nothing else is left (a paid plan's key takes more). Shown as `max_request_tokens`.
   */
  readonly maxRequestTokens?: number;
  /**
   * How many requests one key may have in flight with this model at once, where the provider
   * documents such a limit (cite the page and the day): Freeway keeps each key within it across
   * workers and instances, and holds a request that finds the key busy until a slot is free
   * (within MAX_WAIT_MS) instead of sending it to meet a concurrency error.
   */
  readonly concurrency?: number;
}

/**
 * Models that share weights, and so give the same vectors (or transcripts) for the same
 * input, whoever serves them. Embedding failover never leaves a family: a vector store
 * breaks silently when one request's vectors come from other weights than the last one's.
 */
export interface ModelFamily {
  /** Lower-case name, e.g. `bge-m3`. Two deployments with the same id are interchangeable. */
  readonly id: string;
  /** The page that says which weights this deployment serves (the model card, the provider's model page). */
  readonly source: string;
}

/** One embedding model of a provider, as its documentation states it (cite the page beside the list). */
export interface EmbeddingModelSpec {
  /** The provider's own model id. */
  readonly id: string;
  readonly family: ModelFamily;
  /** The most inputs the provider takes in one call; larger requests are split and put back in order. */
  readonly maxBatch: number;
  /** The most tokens of one input. */
  readonly contextWindow: number;
  /** Output dimensions when `dimensions` is not sent. */
  readonly defaultDimensions: number;
  /** The `dimensions` values the model takes; absent: the field is refused. */
  readonly dimensions?: { readonly min: number; readonly max: number };
  /**
   * Takes token-id arrays (`input: [[1, 2, 3]]`) as OpenAI's embeddings API does. False for
   * every model: the AI SDK's embedding interface carries text only, so such input is a 400.
   */
  readonly tokenInput: false;
  /** Still listed and pinnable, never picked by an alias. */
  readonly deprecated?: boolean;
}

/** One speech-to-text model of a provider. */
export interface TranscriptionModelSpec {
  /** The provider's own model id. */
  readonly id: string;
  readonly family: ModelFamily;
  /** The largest audio file the provider takes, in bytes, as documented. */
  readonly maxBytes: number;
  readonly deprecated?: boolean;
}

/** What an embedding call asks of the provider beyond the texts. */
export interface EmbeddingCallExtras {
  /** An end-user id, where the provider takes one. */
  readonly user?: string;
  /** `query` or `passage`, for models that embed the two differently (NVIDIA's E5 models). */
  readonly inputType?: 'query' | 'passage';
}

/** What a transcription call asks of the provider beyond the audio. */
export interface TranscriptionCallExtras {
  readonly language?: string;
  readonly prompt?: string;
  readonly temperature?: number;
}

export type FetchFunction = typeof globalThis.fetch;

export interface ModelFactoryOptions {
  /** The provider's own model id. */
  readonly modelId: string;
  /** The default base URL, or its `<ID>_BASE_URL` override. */
  readonly baseURL: string;
  /** The HTTP client every upstream call goes through; the global fetch when absent. */
  readonly fetch?: FetchFunction;
}

/** Quota figures a provider reported on an answer; absent fields were not reported. */
export interface QuotaSnapshot {
  readonly remainingRequests?: number;
  readonly remainingTokens?: number;
  /** Epoch ms at which the request budget is full again. */
  readonly requestsResetAt?: number;
  /** Epoch ms at which the token budget is full again. */
  readonly tokensResetAt?: number;
  /** The key's token budget per minute, where the provider reports it (`x-ratelimit-limit-tokens`): no one request may hold more. */
  readonly limitTokens?: number;
}

/** What an upstream error means for routing and health. */
export type UpstreamErrorKind =
  | 'rate_limited' // the key is out of its free tier for now: fail over, skip the key until its reset
  | 'no_credit' // 402, or a documented "trial / credit exhausted": the key has no credit left; skip it for NO_CREDIT_WAIT_MS
  | 'invalid_key' // the key is wrong, revoked or not allowed: fail over, skip the key for a while
  | 'server' // the provider is failing: fail over, count towards `down`
  | 'model_unavailable' // the provider does not serve this model (any more): try another model
  | 'context_too_long' // the request does not fit this model: try a model with a larger window
  | 'output_budget' // the output budget (max tokens) is above the model's maximum: retry with the stated maximum, else try another model
  | 'request_too_large' // the request is larger than the key's per-request token budget for the model (Groq's TPM 413): about the request, not the key; learnt, and the next key or model is tried
  | 'request'; // the request itself is wrong: the caller gets a 400, nothing else is tried

/** An upstream error answer as Freeway received it. */
export interface UpstreamErrorAnswer {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * One documented error case of a provider: a status and what the body says.
 * A plugin's rules are tried in order before Freeway's generic classification.
 */
export interface ErrorRule {
  /** The case in words, e.g. `daily token limit (TPD)`. */
  readonly name: string;
  readonly status: number | readonly number[];
  /** Tested against the body; without it every body with this status matches. Written without flags. */
  readonly body?: RegExp;
  /**
   * A documented error code the body must carry: `error.code`, a top-level `code`, or the
   * `code` of the first entry of `errors` (Cloudflare's envelope), compared as text, so that
   * `3036` matches `3036` and `"3036"`. With `body` too, both must match.
   */
  readonly code?: string | number;
  readonly kind: UpstreamErrorKind;
  /**
   * For `rate_limited`: the epoch ms at which the key may be used again (a daily
   * limit's reset). Undefined falls back to Retry-After, a hint in the body, else 60 s.
   */
  readonly retryAt?: (answer: UpstreamErrorAnswer, now: number) => number | undefined;
  /**
   * For `output_budget`: the most output tokens the model takes, as the answer states it.
   * Undefined falls back to Freeway's generic reading of the message.
   */
  readonly maxOutputTokens?: (answer: UpstreamErrorAnswer) => number | undefined;
  /**
   * For `request_too_large`: the most tokens one request may hold, as the answer states it.
   * Undefined falls back to Freeway's generic reading of the message (`Limit 8000`).
   */
  readonly requestLimit?: (answer: UpstreamErrorAnswer) => number | undefined;
}

/** One row of a provider's error table, as its documentation shows the answer. */
export interface ErrorFixture {
  /** Where the body comes from: a documentation URL or page name, or an issue that quotes it. */
  readonly source: string;
  /** The case in words. */
  readonly name: string;
  readonly status: number;
  /** Response headers (lower-case names) the provider sends with it. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body, as a JSON value or raw text. */
  readonly body: unknown;
  readonly kind: UpstreamErrorKind;
  /** For `rate_limited`: the seconds GET /health reports as `retryAfter` when the answer came at `FIXTURE_NOW`. */
  readonly retryAfter?: number;
  /** For `request_too_large`: the per-request token limit the answer states, which Freeway learns for the key and model. */
  readonly requestLimit?: number;
}

/** How a provider's chat calls look on the wire, for the tests that play its upstream. */
export interface WireFixture {
  /** `openai` (chat/completions, the default) or `gemini` (Google's streamGenerateContent). */
  readonly format?: 'openai' | 'gemini';
  /** Path and query, under the base URL, that a streaming chat call with this key reaches; `/chat/completions` when absent. */
  readonly chatPath?: (modelId: string, key: string) => string;
  /** OpenAI request fields the provider refuses or its SDK does not send, which Freeway leaves out. */
  readonly omittedFields?: readonly string[];
  /** Where its streams report usage: OpenAI's final `usage` chunk (the default) or Groq's `x_groq.usage`. */
  readonly streamUsage?: 'usage' | 'x_groq';
}

/** One model of a provider's own model listing, as a plugin reads it. */
export interface ListedModel {
  /** The provider's own model id, as chat calls take it. */
  readonly id: string;
  /**
   * `other` for what Freeway never routes (speech output, moderation, rerank, image
   * generation, ...), whether the listing says so or the plugin's rules recognise it.
   */
  readonly kind: ModelKind | 'other';
  /**
   * Free on a free key, as the listing shows (zero prices, a `:free` id) or the plugin's
   * documented rules say (a free plan that serves every listed model). Only free models
   * the plugin does not curate join aliases; others are listed and pinnable.
   */
  readonly free: boolean;
  /** Context window in tokens, where the listing reports it. */
  readonly contextWindow?: number;
  /** Where the listing reports them (tools, image input, reasoning); absent: only `free:auto`. */
  readonly capabilities?: readonly Capability[];
  /** The most output tokens per answer, where the listing reports it. */
  readonly maxOutputTokens?: number;
}

/** One page of a listing answer as the plugin read it. */
export interface ListingPage {
  readonly models: readonly ListedModel[];
  /** The token of the next page, when the provider pages its listing. */
  readonly next?: string;
}

/**
 * How to ask a provider which models a key can use, from its documented API.
 * Each call is authenticated with `authHeaders(key)`.
 */
export interface ModelListing {
  /** The documentation of the listing endpoint. */
  readonly source: string;
  /** The URL of one page of the listing (the first when `page` is absent). */
  readonly url: (baseURL: string, key: string, page?: string) => string;
  /** Reads one page; throws when the body is not the documented shape. */
  readonly read: (body: unknown) => ListingPage;
  /**
   * The provider documents that the listing answers without a key and shows what calls without a key
   * can reach: calls without a key (`anonymous`) then follow it too, asked with no credential.
   */
  readonly keyless?: boolean;
}

/** A documented call that needs a valid key and costs no chat quota, for checking keys. */
export interface KeyCheck {
  readonly source: string;
  /** Its URL; authenticated with `authHeaders(key)`. */
  readonly url: (baseURL: string, key: string) => string;
}

/** A recorded listing answer, for the tests that play the provider. */
export interface ListingFixture {
  /** Where the answer's shape comes from: the documentation page, or an issue that quotes one. */
  readonly source: string;
  /** The first page as the provider sends it. */
  readonly body: unknown;
  /** What the plugin must read from it: ids in listing order, with their kind and whether free. */
  readonly expected: ReadonlyArray<Pick<ListedModel, 'id' | 'kind' | 'free'>>;
}

/** What a plugin's tests need, in `providers/<id>/fixtures.ts` (default export); not part of the build. */
export interface ProviderFixtures {
  /**
   * A key in the provider's real format, made up and random-looking: it matches the plugin's
   * key patterns, and no run of 8 of its characters is part of a model id, name or header.
   */
  readonly sampleKey: string;
  /** How its chat calls look on the wire; OpenAI's chat/completions format when absent. */
  readonly wire?: WireFixture;
  /** The provider's documented error answers and what Freeway must make of each. */
  readonly errors: readonly ErrorFixture[];
  /** The documented answer of its model listing, when the plugin declares `listing`. */
  readonly listing?: ListingFixture;
}

/** The moment error fixtures are played at: Thursday 15 January 2026, 20:00 UTC (12:00 in California). */
export const FIXTURE_NOW = Date.UTC(2026, 0, 15, 20, 0, 0);

/**
 * What a caller asked for that the AI SDK's standard call options do not carry;
 * each field is absent when the caller did not send it.
 */
export interface RequestExtras {
  /** An end-user id for the provider's abuse monitoring. */
  readonly user?: string;
  /** False: at most one tool call per answer. */
  readonly parallelToolCalls?: boolean;
  /** Return the log probability of each output token. */
  readonly logprobs?: boolean;
  /** With `logprobs`: how many most likely alternatives to list per token (0 to 20). */
  readonly topLogprobs?: number;
}

/**
 * One provider, self-contained. A folder `providers/<id>/index.ts` whose default
 * export is this object is all it takes to add a provider.
 */
export interface ProviderPlugin {
  /** Lower-case id, the `{provider}` of `{provider}/{modelId}`. */
  readonly id: string;
  /** Name for people (README, errors). */
  readonly name: string;
  /** The request header that carries the caller's key, `X-{Provider}-Key`. */
  readonly header: string;
  /**
   * Patterns of this provider's key format, redacted from every error message.
   * Written without flags; the redactor compiles them all into one expression.
   */
  readonly keyPatterns: readonly RegExp[];
  /**
   * How a key looks, for a person pasting one (the console's placeholder), where the literal start
   * of `keyPatterns` does not say it: Cloudflare's `account_id:api_token`. Absent: derived from
   * `keyPatterns` (`gsk_…`).
   */
  readonly keyHint?: string;
  readonly baseURL: string;
  /** Where a person gets a key (the provider's console). */
  readonly keyUrl: string;
  /** What a free key gets, with its source. */
  readonly tier: TierInfo;
  /** Whether sign-up asks for a card, with its source; absent: not known. */
  readonly signUp?: SignUp;
  /** Calls without a key, where the provider documents them; absent: every call needs a key. */
  readonly anonymous?: AnonymousAccess;
  /** Alias order among providers of equal health: lower goes first. */
  readonly priority: number;
  /**
   * The curated models: what `GET /v1/models` shows without keys, and what a key is
   * assumed to serve until its live listing says otherwise. Each list carries, in a
   * comment, the page it was checked against and the day.
   */
  readonly models: readonly ModelSpec[];
  /** How to list the models a key can use now; absent: the curated list is all Freeway knows. */
  readonly listing?: ModelListing;
  /** How to check a key without spending chat quota; absent: the listing's first page. */
  readonly keyCheck?: KeyCheck;
  /**
   * Checks the shape of a key header value. Returns a message for the caller
   * (which never repeats the value) when it cannot be used, else undefined.
   */
  readonly checkKey?: (value: string) => string | undefined;
  /**
   * The headers that authenticate one upstream call with the caller's key
   * (lower-case names). Models never hold a key: Freeway builds each model
   * once and passes these headers with every call.
   */
  readonly authHeaders: (key: string) => Record<string, string>;
  /**
   * Builds the AI SDK language model for one of this provider's models; called
   * once per process and model, on first use. It may load the provider's SDK
   * then (a dynamic import), so that start-up and memory only pay for the
   * providers in use.
   */
  readonly createModel: (options: ModelFactoryOptions) => LanguageModelV4 | Promise<LanguageModelV4>;
  /**
   * False when the provider's streams carry no token usage (Cohere's
   * compatibility API refuses `stream_options`). Freeway streams every call
   * upstream, but a caller that did not ask to stream then gets one
   * non-streaming upstream call (`doGenerate`), so its answer reports the usage
   * the provider sends; the request's deadline (`REQUEST_TIMEOUT_MS`), not the
   * first-token timeout, bounds that call. Default true.
   */
  readonly usageInStreams?: boolean;
  /** The provider's documented error answers, tried before the generic classification. */
  readonly errorRules?: readonly ErrorRule[];
  /**
   * The AI SDK `providerOptions` entry (under the plugin's id) that carries a
   * request's extras, or undefined for none. Absent: OpenAI's own body fields
   * (`user`, `parallel_tool_calls`, and `logprobs` / `top_logprobs` when the
   * plugin declares `logprobs`), which @ai-sdk/openai-compatible copies into the
   * request body (`providerOptionsFor` in request-extras.ts).
   */
  readonly providerOptions?: (extras: RequestExtras) => JSONObject | undefined;
  /**
   * True when the provider documents token log probabilities in OpenAI's format
   * (`logprobs`, `top_logprobs` in; `choices[].logprobs.content` out). Elsewhere
   * a request's `logprobs` is not sent, and its answer has `logprobs: null`.
   */
  readonly logprobs?: boolean;
  /** Reads the rate-limit headers of an upstream answer (lower-case names); undefined when none. */
  readonly readQuota?: (headers: Readonly<Record<string, string>>, now: number) => QuotaSnapshot | undefined;
  /** Models served on `/v1/embeddings`, each declared in `providers/<id>/embeddings.ts` with its source. */
  readonly embeddingModels?: readonly EmbeddingModelSpec[];
  /** Builds the AI SDK embedding model for one of `embeddingModels`; once per process and model. */
  readonly createEmbeddingModel?: (options: ModelFactoryOptions) => EmbeddingModelV4 | Promise<EmbeddingModelV4>;
  /** The call's `providerOptions` entry (under the plugin's id) for one embedding request, or undefined. */
  readonly embeddingOptions?: (spec: EmbeddingModelSpec, extras: EmbeddingCallExtras) => JSONObject | undefined;
  /** Models served on `/v1/audio/transcriptions`, each declared in `providers/<id>/transcriptions.ts`. */
  readonly transcriptionModels?: readonly TranscriptionModelSpec[];
  /** Builds the AI SDK transcription model for one of `transcriptionModels`; once per process and model. */
  readonly createTranscriptionModel?: (options: ModelFactoryOptions) => TranscriptionModelV4 | Promise<TranscriptionModelV4>;
  /** The call's `providerOptions` entry (under the plugin's id) for one transcription request. */
  readonly transcriptionOptions?: (extras: TranscriptionCallExtras) => JSONObject | undefined;
}
