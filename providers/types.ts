import type { LanguageModelV4 } from '@ai-sdk/provider';

/** What a model can be picked for. Each one but `long-context` names an alias `free:<capability>`. */
export type Capability = 'fast' | 'reasoning' | 'long-context' | 'vision' | 'tool-use';

export interface ModelSpec {
  /** The provider's own model id; may contain `/`, `@` and `:`. */
  readonly id: string;
  readonly capabilities: readonly Capability[];
  /** Context window in tokens. */
  readonly contextWindow: number;
  /** Still listed and pinnable, never picked by an alias. */
  readonly deprecated?: boolean;
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
  readonly baseURL: string;
  /** Alias order among providers of equal health: lower goes first. */
  readonly priority: number;
  readonly models: readonly ModelSpec[];
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
  /** Reads the rate-limit headers of an upstream answer (lower-case names); undefined when none. */
  readonly readQuota?: (headers: Readonly<Record<string, string>>, now: number) => QuotaSnapshot | undefined;
}
