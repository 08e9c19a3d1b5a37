import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator, setGlobalErrorHandler } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config/index.ts';
import { finishReasonOf, outputRecord, promptRecord, type ContentRedactor, type OutputRecord } from './content.ts';
import type { ActiveRequest, AttemptStart, AttemptTrace, GenAiOperation, RequestOutcome, RequestTrace, Requested, Tracing } from './types.ts';

/**
 * Freeway's spans through OpenTelemetry's own SDK: a SERVER span per request and a CLIENT
 * span per upstream attempt under it, named and attributed by the GenAI semantic conventions
 * (`{gen_ai.operation.name} {gen_ai.request.model}`). Loaded only when tracing is on.
 */

/** Tracing's settings when OTEL_TRACES_EXPORTER=otlp. */
type OtlpTracing = Extract<TracingConfig, { mode: 'otlp' }>;

/** The GenAI conventions' attribute names (development status: spelled out here, not taken from the incubating entry point). */
const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  stream: 'gen_ai.request.stream',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  firstChunk: 'gen_ai.response.time_to_first_chunk',
  finishReasons: 'gen_ai.response.finish_reasons',
  system: 'gen_ai.system_instructions',
  input: 'gen_ai.input.messages',
  output: 'gen_ai.output.messages',
} as const;

/** Freeway's provider ids that the conventions name otherwise (`gen_ai.provider.name`'s well-known values); any other id is used as it is. */
const conventionProviders: Readonly<Record<string, string>> = { google: 'gcp.gemini', mistral: 'mistral_ai' };

const propagator = new W3CTraceContextPropagator();

/** One attempt's span; every call after `end` does nothing. */
function attemptTrace(span: Span, model: string): AttemptTrace {
  let ended = false;
  return {
    firstOutput(ms) {
      if (!ended) span.setAttribute(GEN_AI.firstChunk, ms / 1000);
    },
    tokens(input, output) {
      if (ended) return;
      if (input !== undefined) span.setAttribute(GEN_AI.inputTokens, input);
      if (output !== undefined) span.setAttribute(GEN_AI.outputTokens, output);
    },
    end(failure) {
      if (ended) return;
      ended = true;
      if (failure) {
        span.setAttributes({ [ATTR_ERROR_TYPE]: failure.kind, 'freeway.attempt.status': String(failure.status) });
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure.kind });
      } else {
        span.setAttributes({ [GEN_AI.responseModel]: model, 'freeway.attempt.status': 'ok' });
      }
      span.end();
    },
  };
}

interface RequestSpan {
  readonly tracer: Tracer;
  readonly span: Span;
  readonly context: Context;
  readonly config: OtlpTracing;
  readonly redact: ContentRedactor;
}

/** The hooks of one request's span; `record` is what its end writes of the content and the finish. */
function requestTrace({ tracer, span, context, config, redact }: RequestSpan, record: { output?: OutputRecord; finish?: string }): RequestTrace {
  let operation: GenAiOperation = 'chat';
  let stream = false;
  const capturesContent = config.captureContent;
  return {
    traceId: span.spanContext().traceId,
    capturesContent,
    requested(what: Requested) {
      operation = what.operation;
      stream = what.stream;
      const attributes: Attributes = { [GEN_AI.operation]: what.operation, [GEN_AI.requestModel]: redact(what.model) };
      if (what.sentModel !== undefined && what.sentModel !== what.model) attributes['freeway.request.sent_model'] = redact(what.sentModel);
      if (what.stream) attributes[GEN_AI.stream] = true;
      span.setAttributes(attributes);
    },
    attempt(start: AttemptStart) {
      const attributes: Attributes = {
        [GEN_AI.operation]: operation,
        [GEN_AI.provider]: conventionProviders[start.provider] ?? start.provider,
        [GEN_AI.requestModel]: start.model,
        'freeway.provider': start.provider,
        'freeway.key.index': start.keyIndex,
        'freeway.key.count': start.keyCount,
      };
      if (stream) attributes[GEN_AI.stream] = true;
      return attemptTrace(tracer.startSpan(`${operation} ${start.model}`, { kind: SpanKind.CLIENT, attributes }, context), start.model);
    },
    input(prompt) {
      if (!capturesContent) return;
      const { system, messages } = promptRecord(prompt, redact, config.attributeMaxLength);
      if (system !== undefined) span.setAttribute(GEN_AI.system, system);
      span.setAttribute(GEN_AI.input, messages);
    },
    outputPart(part) {
      if (!capturesContent) return;
      record.output ??= outputRecord(redact, config.attributeMaxLength);
      record.output.take(part);
    },
    output({ content, finishReason }) {
      record.finish = finishReasonOf(finishReason);
      if (!capturesContent || content === undefined) return;
      record.output ??= outputRecord(redact, config.attributeMaxLength);
      record.output.whole(content);
    },
  };
}

/** Writes how the request ended on its span, and ends it. */
function endRequest({ span, redact }: RequestSpan, method: string, outcome: RequestOutcome, record: { output?: OutputRecord; finish?: string }): void {
  const attributes: Attributes = { [ATTR_HTTP_RESPONSE_STATUS_CODE]: outcome.status };
  if (outcome.route !== undefined) {
    attributes[ATTR_HTTP_ROUTE] = outcome.route;
    span.updateName(`${method} ${outcome.route}`);
  }
  if (outcome.requestId !== undefined) attributes['freeway.request_id'] = outcome.requestId;
  if (outcome.attempts !== undefined) {
    attributes['freeway.attempts'] = outcome.attempts.text;
    attributes['freeway.attempt.count'] = outcome.attempts.count;
  }
  if (outcome.waitedMs !== undefined) attributes['freeway.waited_ms'] = outcome.waitedMs;
  if (outcome.provider !== undefined) attributes['freeway.provider'] = outcome.provider;
  if (outcome.model !== undefined) attributes[GEN_AI.responseModel] = outcome.model;
  if (record.finish !== undefined) attributes[GEN_AI.finishReasons] = [record.finish];
  const output = record.output?.text(record.finish);
  if (output !== undefined) attributes[GEN_AI.output] = output;
  span.setAttributes(attributes);
  // A server span fails on a 5xx only: a 4xx is the caller's (OpenTelemetry's HTTP conventions).
  if (outcome.status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, String(outcome.status));
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason === undefined ? undefined : redact(outcome.reason) });
  }
  span.end();
}

/** The exporter OTEL_EXPORTER_OTLP_PROTOCOL names, from OpenTelemetry's own packages. */
async function createExporter(config: OtlpTracing): Promise<SpanExporter> {
  const { OTLPTraceExporter } = config.protocol === 'http/json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: config.url });
}

/** Batches of at most this many spans per export (OpenTelemetry's default), never more than the queue holds. */
const MAX_EXPORT_BATCH = 512;

export async function createTracing(config: OtlpTracing, warn: (message: string) => void): Promise<Tracing> {
  // The SDK reports failed exports here; the caller throttles them.
  setGlobalErrorHandler((error) => warn(`OpenTelemetry: ${error instanceof Error ? error.message : String(error)}`.slice(0, 512)));
  const processor = new BatchSpanProcessor({
    exporter: await createExporter(config),
    maxQueueSize: config.queueMaxSpans,
    maxExportBatchSize: Math.min(MAX_EXPORT_BATCH, config.queueMaxSpans),
    scheduledDelayMillis: config.scheduleDelayMs,
  });
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, 'process.pid': process.pid })),
    spanLimits: { attributeValueLengthLimit: config.attributeMaxLength },
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer('freeway');
  return {
    startRequest({ method, headers, redact }): ActiveRequest {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } }, parent);
      const request: RequestSpan = { tracer, span, context: trace.setSpan(parent, span), config, redact };
      const record: { output?: OutputRecord; finish?: string } = {};
      let ended = false;
      return {
        trace: requestTrace(request, record),
        end(outcome) {
          if (ended) return;
          ended = true;
          endRequest(request, method, outcome, record);
        },
      };
    },
    async shutdown(withinMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, withinMs);
        timer.unref();
      });
      await Promise.race([provider.shutdown().catch(() => {}), late]);
      clearTimeout(timer);
    },
  };
}
