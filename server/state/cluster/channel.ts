import cluster, { type Worker } from 'node:cluster';

/*
 * The one channel between a cluster worker and the primary, over Node's IPC:
 * a worker asks (a store operation, the whole cluster's metrics) and the
 * primary replies to that request by its sequence number. Besides, two notices
 * that need no reply: the primary's "shut down" and a worker's "cannot start".
 *
 * On the wire: `{freeway: 'store', seq, call}` and `{freeway: 'store', seq, value | error}`
 * ('store' for every call: the stores were the channel's first users).
 */

/** One operation asked of the primary, with its arguments. */
export interface Call {
  readonly op: string;
}

interface Request<C extends Call> {
  readonly freeway: 'store';
  readonly seq: number;
  readonly call: C;
}

interface Reply {
  readonly freeway: 'store';
  readonly seq: number;
  readonly value?: unknown;
  readonly error?: string;
}

export interface AskOptions {
  /** How long to wait for the reply before rejecting. */
  readonly timeoutMs: number;
  /**
   * After a call like this one timed out, the next ones are refused at once for
   * a while (QUIET_MS) instead of each waiting for a primary that does not answer.
   */
  readonly failFast: boolean;
}

/** In a worker: asks the primary, resolving with its reply. */
export type AskPrimary = <T>(call: Call, options: AskOptions) => Promise<T>;

/** After a fail-fast call timed out, how long such calls skip the primary. */
const QUIET_MS = 5_000;
/** How often waiting calls are checked against their deadline: one sweeper, not a timer per call. */
const SWEEP_MS = 100;

function isFreewayMessage(message: unknown, kind: string): boolean {
  return typeof message === 'object' && message !== null && (message as { freeway?: unknown }).freeway === kind;
}

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
  readonly deadline: number;
  readonly options: AskOptions;
}

let connected: AskPrimary | undefined;

/**
 * In a worker: the channel to the primary. One per process (made on first use),
 * so that one listener and one sequence serve every caller.
 */
export function connectToPrimary(): AskPrimary {
  connected ??= openChannel();
  return connected;
}

function openChannel(): AskPrimary {
  const pending = new Map<number, Waiting>();
  let seq = 0;
  let quietUntil = 0;
  process.on('message', (message: unknown) => {
    if (!isFreewayMessage(message, 'store')) return;
    // Even a late answer shows the primary is back.
    quietUntil = 0;
    const reply = message as Reply;
    const entry = pending.get(reply.seq);
    if (!entry) return;
    pending.delete(reply.seq);
    if (reply.error !== undefined) entry.reject(new Error(reply.error));
    else entry.resolve(reply.value);
  });
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, entry] of pending) {
      if (entry.deadline > now) continue;
      pending.delete(id);
      if (entry.options.failFast) quietUntil = now + QUIET_MS;
      entry.reject(new Error(`the cluster primary did not answer within ${entry.options.timeoutMs} ms`));
    }
  }, SWEEP_MS);
  sweeper.unref();

  return <T>(call: Call, options: AskOptions) =>
    new Promise<T>((resolve, reject) => {
      if (!process.send || !process.connected) {
        reject(new Error('no channel to the cluster primary'));
        return;
      }
      if (options.failFast && quietUntil !== 0 && Date.now() < quietUntil) {
        reject(new Error('the cluster primary is not answering'));
        return;
      }
      const id = (seq = (seq + 1) % Number.MAX_SAFE_INTEGER);
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject, deadline: Date.now() + options.timeoutMs, options });
      const request: Request<Call> = { freeway: 'store', seq: id, call };
      process.send(request, undefined, undefined, (error: Error | null) => {
        if (!error || !pending.delete(id)) return;
        reject(error);
      });
    });
}

/** In the primary: answers every worker's calls with `run`; a call it rejects is answered with the error's message. */
export function answerWorkers<C extends Call>(run: (call: C) => Promise<unknown>): void {
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isFreewayMessage(message, 'store')) return;
    const { seq, call } = message as Request<C>;
    const answer = (reply: Reply): void => {
      if (worker.isConnected()) worker.send(reply, undefined, () => {});
    };
    run(call).then(
      (value) => answer({ freeway: 'store', seq, value: value ?? null }),
      (error: unknown) => answer({ freeway: 'store', seq, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/** The primary's "drain and stop" to a worker: a message, not a signal, so that a terminal's SIGINT to the group is not taken for a second one. */
export const shutdownMessage = { freeway: 'shutdown' } as const;

export const isShutdownMessage = (message: unknown): boolean => isFreewayMessage(message, 'shutdown');

/** A worker that could not listen tells the primary why; the primary reports it once and exits 1. */
export const cannotStartMessage = (reason: string) => ({ freeway: 'cannot-start', reason }) as const;

/** The reason in a worker's "cannot start" notice; undefined for any other message. */
export const cannotStartReason = (message: unknown): string | undefined =>
  isFreewayMessage(message, 'cannot-start') ? String((message as { reason?: unknown }).reason) : undefined;
