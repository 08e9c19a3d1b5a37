import type { Candidate } from './plan.ts';
import { AttemptTimeout, DeadlineExceeded } from './upstream-errors.ts';

/** One attempt: its abort signal and its timers. Only time spent waiting on the upstream counts against it. */

export interface AttemptLog {
  readonly provider: string;
  readonly model: string;
  /** The key's position in its header, when the header carried more than one key. */
  readonly key?: number;
  /** Upstream HTTP status, `ok`, or what went wrong without one (`timeout`, `connection`, ...), or why it was skipped (`too large (~41000 > 8000 tokens)`). */
  readonly status: number | string;
  /** How long the attempt took; absent for a candidate skipped without a call. */
  readonly ms?: number;
  /** Not an attempt: how long the request was held for this provider's key (`waited 4.2s for groq`). */
  readonly waitedMs?: number;
}

/** What a call to one upstream is handed: the signal to pass on, and where to report what it learnt. */
export interface AttemptControl {
  readonly signal: AbortSignal;
  /** Call with the upstream's response headers: the provider's quota figures are read from them. */
  responseHeaders(headers: Readonly<Record<string, string>>): void;
  /**
   * Call before a non-streaming upstream call, whose output only comes whole:
   * there is no first token to wait for, so only the request's deadline
   * (`REQUEST_TIMEOUT_MS` from the request's start) bounds the attempt.
   */
  awaitWholeAnswer(): void;
}

/** A streaming attempt's reads: the silence timers run only while a read waits on the upstream. */
export interface Attempt extends AttemptControl {
  /** Reads one part; FIRST_TOKEN_TIMEOUT_MS, then STREAM_IDLE_TIMEOUT_MS, bound the wait. */
  read<T>(reader: ReadableStreamDefaultReader<T>): ReturnType<ReadableStreamDefaultReader<T>['read']>;
  /** The first real output arrived: the first-token timer gives way to the idle timer and the request's deadline. */
  firstOutput(): void;
}

export interface AttemptTimings {
  readonly firstTokenTimeoutMs: number;
  readonly streamIdleTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly streamMaxDurationMs: number;
}

/** The attempt as the router runs it: the control it hands the call, and how it ends. */
export interface RunningAttempt {
  readonly attempt: Attempt;
  readonly started: number;
  /** The upstream's response headers, when the call reported them. */
  headers(): Readonly<Record<string, string>> | undefined;
  /** A stream is handed to the caller (a streaming attempt only): from now STREAM_MAX_DURATION_MS (from the request's start) bounds it. */
  handOver(): void;
  /** Clears the timers and lets go of the caller's signal; aborts the upstream call unless it ended well. */
  end(aborted: boolean): void;
}

export function logAttempt(candidate: Candidate, status: number | string, ms: number): AttemptLog {
  const { model } = candidate;
  return candidate.keyCount > 1
    ? { provider: model.provider.id, model: model.spec.id, key: candidate.keyPosition, status, ms }
    : { provider: model.provider.id, model: model.spec.id, status, ms };
}

/** What an attempt is started with. */
export interface AttemptStart {
  readonly timings: AttemptTimings;
  /** Aborted when the caller goes away; the attempt's upstream call is aborted with it. */
  readonly callerSignal: AbortSignal;
  /** When the request started, for its deadlines. */
  readonly runStarted: number;
  /** The request's time left. */
  readonly left: number;
  /** Gets the time to first output (for latency routing). */
  readonly onFirstOutput: (ms: number) => void;
  /**
   * The answer is handed over as a stream right after its first output (`handOver`), and
   * STREAM_MAX_DURATION_MS bounds it from there; otherwise REQUEST_TIMEOUT_MS bounds its collection.
   */
  readonly streams: boolean;
}

/** A request's deadlines are first armed to this step below them, so that requests share Node's timer list for that duration. */
const DEADLINE_STEP_MS = 1000;

/** Milliseconds this thread's event loop has spent waiting for I/O since it started. */
function loopIdle(): number {
  return performance.nodeTiming.idleTime;
}

/** Starts an attempt: its abort controller and its first timer. */
export function startAttempt({ timings, callerSignal, runStarted, left, onFirstOutput, streams }: AttemptStart): RunningAttempt {
  const started = Date.now();
  const controller = new AbortController();
  const onCallerGone = (): void => controller.abort(callerSignal.reason);
  callerSignal.addEventListener('abort', onCallerGone, { once: true });
  let streaming = false;
  let reading = false;
  let upstreamHeaders: Readonly<Record<string, string>> | undefined;
  const abort = (reason: Error): void => controller.abort(reason);
  // Before the first token one timer bounds both silence and the request's time left; after it, the
  // same timer checks silence (onIdle) when it fires no later than STREAM_IDLE_TIMEOUT_MS would.
  const firstWaitMs = Math.min(timings.firstTokenTimeoutMs, left);
  let silence = setTimeout(() => (streaming ? onIdle() : abort(new AttemptTimeout('first token'))), firstWaitMs);
  let overall: NodeJS.Timeout | undefined;
  // Set only when the idle timer fired before the read in progress had been silent long enough.
  let recheck: NodeJS.Timeout | undefined;
  // Whether the idle timer or its recheck is still to fire: reads do not re-arm it each, the
  // first read after it fired with nobody reading does.
  let idleArmed = false;
  let loopIdleAtRead = 0;
  const onIdle = (): void => {
    idleArmed = false;
    // Time the caller takes to read is not upstream silence.
    if (!reading) return;
    // Nor is time Freeway's own event loop spent busy: upstream bytes may sit unread in the socket
    // (timers run before I/O), or, from a peer in this process, not be written yet. Only the
    // loop's idle time since the read began, waiting on I/O that did not come, counts as silence.
    const silentMs = loopIdle() - loopIdleAtRead;
    if (silentMs >= timings.streamIdleTimeoutMs) abort(new AttemptTimeout('stream idle'));
    else {
      recheck = setTimeout(onIdle, timings.streamIdleTimeoutMs - silentMs);
      idleArmed = true;
    }
  };
  // Node keeps one timer list per duration, made and dropped with its last timer: a deadline armed for
  // its exact time left would make and drop one per request. It is armed to the step below, then for the rest.
  const armDeadline = (label: string, setting: string, ms: number): void => {
    const at = runStarted + ms;
    const fire = (): void => {
      const rest = at - Date.now();
      if (rest > 0) overall = setTimeout(fire, rest);
      else abort(new DeadlineExceeded(label, `${label} (${setting}, ${ms} ms)`));
    };
    const rest = at - Date.now();
    overall = setTimeout(fire, rest > DEADLINE_STEP_MS ? rest - (rest % DEADLINE_STEP_MS) : Math.max(0, rest));
  };

  const readEnded = <T>(result: T): T => {
    reading = false;
    return result;
  };
  const readFailed = (error: unknown): never => {
    reading = false;
    throw error;
  };

  const attempt: Attempt = {
    signal: controller.signal,
    responseHeaders(headers) {
      upstreamHeaders = headers;
    },
    awaitWholeAnswer() {
      clearTimeout(silence);
      silence = setTimeout(() => abort(new AttemptTimeout('request timeout')), Math.max(0, runStarted + timings.requestTimeoutMs - Date.now()));
    },
    firstOutput() {
      if (streaming) return;
      streaming = true;
      onFirstOutput(Date.now() - started);
      // The first-token timer, due no later than the idle timeout from now, checks silence from here (and
      // re-armed by a read, waits its own length, no longer than the idle timeout): no second timer.
      if (firstWaitMs > timings.streamIdleTimeoutMs) {
        clearTimeout(silence);
        silence = setTimeout(onIdle, timings.streamIdleTimeoutMs);
      }
      idleArmed = true;
      // A stream is handed over next, and STREAM_MAX_DURATION_MS bounds it from there (handOver).
      if (!streams) armDeadline('request timeout', 'REQUEST_TIMEOUT_MS', timings.requestTimeoutMs);
    },
    read(reader) {
      if (!streaming) return reader.read();
      reading = true;
      loopIdleAtRead = loopIdle();
      // The timer fires at most one timeout after this read began; if it fires sooner, it
      // waits again for the rest (onIdle). Re-arming it here on every chunk would cost a
      // timer-list insertion per chunk.
      if (!idleArmed) {
        idleArmed = true;
        silence.refresh();
      }
      // Not an async function: each part read would cost one more promise and turn of the microtask queue.
      return reader.read().then(readEnded, readFailed) as ReturnType<typeof reader.read>;
    },
  };
  return {
    attempt,
    started,
    headers: () => upstreamHeaders,
    handOver() {
      // A streaming attempt's first output armed no request deadline: this is its first.
      armDeadline('stream max duration', 'STREAM_MAX_DURATION_MS', timings.streamMaxDurationMs);
    },
    end(aborted) {
      clearTimeout(silence);
      clearTimeout(recheck);
      clearTimeout(overall);
      callerSignal.removeEventListener('abort', onCallerGone);
      // Whatever failed, the upstream call is over: release its connection.
      if (aborted && !controller.signal.aborted) controller.abort(new AttemptTimeout('attempt over'));
    },
  };
}
