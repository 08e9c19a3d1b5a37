import type { TracingConfig } from '../config/index.ts';
import type { Tracing } from './types.ts';

export type { ActiveRequest, AttemptFailure, AttemptStart, AttemptTrace, GenAiOperation, OutputPart, RequestOutcome, RequestTrace, Requested, Tracing } from './types.ts';

/**
 * Freeway's traces, or undefined when OTEL_TRACES_EXPORTER does not ask for them: then
 * OpenTelemetry's SDK is never even loaded, and every hook of a request is skipped.
 * `warn` gets the SDK's complaints (a collector that does not answer); throttle it.
 */
export async function startTracing(config: TracingConfig, warn: (message: string) => void): Promise<Tracing | undefined> {
  if (config.mode === 'off') return undefined;
  const { createTracing } = await import('./otel.ts');
  return createTracing(config, warn);
}
