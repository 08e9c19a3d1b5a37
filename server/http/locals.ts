// What Freeway keeps on a request's `res.locals`, declared once for every handler
// (as Hono's ContextVariableMap does): read and written without casts.
import type { ErrorBodyFormat } from '../core/errors.ts';
import type { LogLocals } from './request-log.ts';
import type { KeySet } from '../core/keys.ts';
import type { RequestTrace } from '../tracing/index.ts';

declare global {
  namespace Express {
    interface Locals extends LogLocals {
      /** The caller's provider keys, once a route has read them: redacted from every log line and error. */
      keys?: KeySet;
      /** How this route's errors look on the wire (Anthropic's on /v1/messages); OpenAI's `errorBody` when unset. */
      errorBody?: ErrorBodyFormat;
      /** The request's trace, when OTEL_TRACES_EXPORTER turned tracing on (http/tracing.ts). */
      trace?: RequestTrace;
    }
  }
}
