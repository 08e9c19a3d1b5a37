import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4Prompt } from '@ai-sdk/provider';

/**
 * What the layers above hand a request's trace, and what they get back. Nothing here
 * imports OpenTelemetry: with tracing off (OTEL_TRACES_EXPORTER unset) no request has a
 * trace, every hook is an `undefined` it skips, and the SDK is never loaded.
 */

/** The GenAI operation of a request (`gen_ai.operation.name`): OpenTelemetry's names, and `transcription` for audio. */
export type GenAiOperation = 'chat' | 'generate_content' | 'embeddings' | 'transcription';

/** What a client API was asked for, on the request span. */
export interface Requested {
  readonly operation: GenAiOperation;
  /** The model or alias the request is routed to (after a model map). */
  readonly model: string;
  /** The model as the caller named it, when a model map may have turned it into another. */
  readonly sentModel?: string;
  readonly stream: boolean;
}

/** One upstream attempt as it starts: the model and which key of the provider's header, never the key. */
export interface AttemptStart {
  readonly provider: string;
  /** The upstream's model id (`llama-3.3-70b`). */
  readonly model: string;
  /** 1-based position of the key in its provider's header, of `keyCount`. */
  readonly keyIndex: number;
  readonly keyCount: number;
}

/** How an attempt failed: the failure's kind (`rate_limited`, `timeout`, ...) and its status in X-Freeway-Attempts. */
export interface AttemptFailure {
  readonly kind: string;
  readonly status: number | string;
}

/** One attempt's span, from its start to its end (for a stream: its last part). */
export interface AttemptTrace {
  /** The first output arrived, `ms` after the attempt started. */
  firstOutput(ms: number): void;
  /** The tokens the answer reported. */
  tokens(input: number | undefined, output: number | undefined): void;
  /** Ends the span; with a failure, as failed. Later calls do nothing. */
  end(failure?: AttemptFailure): void;
}

/** One request's trace: its span, and the attempts under it. */
export interface RequestTrace {
  /** The W3C trace id (32 hex digits), also sent back in X-Freeway-Trace-Id. */
  readonly traceId: string;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: prompts and answers go on the span (redacted). */
  readonly capturesContent: boolean;
  requested(what: Requested): void;
  /** Starts the span of one upstream attempt, a child of the request's. */
  attempt(start: AttemptStart): AttemptTrace;
  /** The prompt, recorded only when `capturesContent`. */
  input(prompt: LanguageModelV4Prompt): void;
  /** The answer as it streams: its text and tool calls, recorded only when `capturesContent`. */
  outputPart(part: OutputPart): void;
  /** The whole answer, recorded only when `capturesContent`; and its finish reason in any case. */
  output(answer: { readonly content?: readonly LanguageModelV4Content[]; readonly finishReason: LanguageModelV4FinishReason }): void;
}

/** A part of a streamed answer (the routed stream's): its text deltas and whole tool calls make the output record. */
export interface OutputPart {
  readonly type: string;
  readonly delta?: string;
  readonly id?: string;
  readonly toolName?: string;
  readonly input?: string;
}

/** How a request ended, as its log line says it: read by the HTTP layer when the answer is over. */
export interface RequestOutcome {
  /** The matched route's pattern (`/v1/chat/completions`), when a route ran. */
  readonly route?: string;
  /** The status as logged: 499 for a caller that went away. */
  readonly status: number;
  /** Why a request failed or was cut, already redacted for the log. */
  readonly reason?: string;
  /** How long the request was held for a window or a slot (X-Freeway-Waited), when it was. */
  readonly waitedMs?: number;
  /** X-Freeway-Attempts' text and how many upstream attempts it names. */
  readonly attempts?: { readonly text: string; readonly count: number };
  /** The provider and catalog model that answered (X-Freeway-Provider, X-Freeway-Model). */
  readonly provider?: string;
  readonly model?: string;
  readonly requestId?: string;
}

/** A request's span while it runs. */
export interface ActiveRequest {
  readonly trace: RequestTrace;
  /** Ends the request's span (once). */
  end(outcome: RequestOutcome): void;
}

/** Freeway's traces, when OTEL_TRACES_EXPORTER=otlp turned them on. */
export interface Tracing {
  /** Starts a request's span, continuing the caller's trace when its headers carry a W3C `traceparent`. */
  startRequest(start: { readonly method: string; readonly headers: Readonly<Record<string, string | string[] | undefined>>; readonly redact: (text: string) => string }): ActiveRequest;
  /** Sends what is pending, waiting at most `withinMs`; no span is taken after it. */
  shutdown(withinMs: number): Promise<void>;
}
