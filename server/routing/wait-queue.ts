/**
 * Requests held until a key may be tried again: a rate-limit window that resets, a concurrency
 * slot that is given back. One lane per key, in arrival order; a lane lets one held request go at
 * a time, and the next only once that one has had its turn (`release`), so that thirty requests
 * held for a window that frees one slot do not all go at once to meet thirty 429s.
 *
 * Bounded: at most `maxHeld` requests at once (WAIT_QUEUE_MAX); each has one timer (its budget)
 * and one abort listener, both removed the moment it leaves, whichever way it leaves.
 */

/** One key a held request may be tried with, and the earliest moment it may (epoch ms). */
export interface HeldKey {
  readonly id: string;
  /** Absent: as the requests held for the key before this one know it (this one queues behind them). */
  readonly readyAt?: number;
}

export interface HoldRequest {
  readonly keys: readonly HeldKey[];
  /** Past this moment (epoch ms) the request is not held any longer: its wait budget. */
  readonly deadline: number;
  /** The caller's signal: a caller that goes away leaves the queue at once. */
  readonly signal: AbortSignal;
  /** Its place in arrival order (`nextOrder`), kept when a request is held again after its turn. */
  readonly order: number;
}

export type HoldOutcome =
  /** One of its keys may be tried: `release` hands the lane's turn to the next held request. */
  | { readonly kind: 'ready'; readonly key: string; readonly release: () => void }
  /** WAIT_QUEUE_MAX requests are held already. */
  | { readonly kind: 'full' }
  /** The budget ran out first. */
  | { readonly kind: 'expired' }
  /** The caller went away. */
  | { readonly kind: 'aborted' }
  /** The queue was closed (shutdown). */
  | { readonly kind: 'closed' };

export interface WaitQueue {
  /** Holds a request until one of its keys may be tried, its budget runs out, or its caller goes away. */
  hold(request: HoldRequest): Promise<HoldOutcome>;
  /** The next place in arrival order. */
  nextOrder(): number;
  /** A key may be tried now (a slot was given back in this process): its lane lets its next request go. */
  wake(key: string): void;
  /** Requests held now. */
  held(): number;
  /**
   * When requests are held for `key` now, when its lane expects the key to be usable (epoch ms):
   * a request that was not let go from that lane queues behind them. Undefined when none is held.
   */
  queuedUntil(key: string): number | undefined;
  /** Answers every held request, and every later one, `closed`, and clears every timer (shutdown). */
  close(): void;
}

interface Waiter {
  readonly order: number;
  readonly keys: readonly string[];
  settle(outcome: HoldOutcome): void;
}

interface Lane {
  /** Held requests, in arrival order. */
  readonly waiters: Waiter[];
  /** When the key may be tried (epoch ms), as the last request held for it said. */
  readyAt: number;
  /** A request let go from this lane has not yet had its turn. */
  busy: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Inserts `waiter` in arrival order: a request held again after its turn goes back to its place, at the front. */
function insertInOrder(waiters: Waiter[], waiter: Waiter): void {
  let at = waiters.length;
  while (at > 0 && (waiters[at - 1] as Waiter).order > waiter.order) at -= 1;
  waiters.splice(at, 0, waiter);
}

export function createWaitQueue(maxHeld: number, now: () => number = Date.now): WaitQueue {
  const lanes = new Map<string, Lane>();
  const waiters = new Set<Waiter>();
  let order = 0;
  let closed = false;

  const forget = (waiter: Waiter): void => {
    waiters.delete(waiter);
    for (const id of waiter.keys) {
      const lane = lanes.get(id);
      if (!lane) continue;
      const at = lane.waiters.indexOf(waiter);
      if (at >= 0) lane.waiters.splice(at, 1);
      dropIfIdle(id, lane);
    }
  };

  function dropIfIdle(id: string, lane: Lane): void {
    if (lane.busy || lane.waiters.length > 0) return;
    if (lane.timer) clearTimeout(lane.timer);
    lanes.delete(id);
  }

  function pump(id: string, lane: Lane): void {
    if (lane.busy || lane.waiters.length === 0) return dropIfIdle(id, lane);
    const wait = lane.readyAt - now();
    if (wait > 0) {
      if (lane.timer) clearTimeout(lane.timer);
      lane.timer = setTimeout(() => {
        lane.timer = undefined;
        pump(id, lane);
      }, wait);
      // The held request's own socket keeps the process up; this timer need not.
      lane.timer.unref();
      return;
    }
    const next = lane.waiters[0] as Waiter;
    lane.busy = true;
    let released = false;
    next.settle({
      kind: 'ready',
      key: id,
      release() {
        if (released) return;
        released = true;
        lane.busy = false;
        // A busy lane is never dropped (dropIfIdle), unless the queue was closed: then this finds it empty.
        pump(id, lane);
      },
    });
  }

  return {
    nextOrder: () => ++order,
    held: () => waiters.size,
    hold({ keys, deadline, signal, order: place }) {
      if (signal.aborted) return Promise.resolve({ kind: 'aborted' });
      if (closed) return Promise.resolve({ kind: 'closed' });
      if (waiters.size >= maxHeld) return Promise.resolve({ kind: 'full' });
      return new Promise<HoldOutcome>((resolve) => {
        let done = false;
        const onAbort = (): void => waiter.settle({ kind: 'aborted' });
        const budget = setTimeout(() => waiter.settle({ kind: 'expired' }), Math.max(0, deadline - now()));
        budget.unref();
        const waiter: Waiter = {
          order: place,
          keys: keys.map((key) => key.id),
          settle(outcome) {
            if (done) return;
            done = true;
            clearTimeout(budget);
            signal.removeEventListener('abort', onAbort);
            forget(waiter);
            resolve(outcome);
          },
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiters.add(waiter);
        for (const { id, readyAt } of keys) {
          let lane = lanes.get(id);
          if (!lane) {
            lane = { waiters: [], readyAt: readyAt ?? now(), busy: false, timer: undefined };
            lanes.set(id, lane);
          }
          if (readyAt !== undefined) lane.readyAt = readyAt;
          insertInOrder(lane.waiters, waiter);
        }
        for (const { id } of keys) {
          const lane = lanes.get(id);
          if (done) break;
          if (lane) pump(id, lane);
        }
      });
    },
    queuedUntil(key) {
      const lane = lanes.get(key);
      return lane && lane.waiters.length > 0 ? lane.readyAt : undefined;
    },
    wake(key) {
      const lane = lanes.get(key);
      if (!lane) return;
      lane.readyAt = now();
      pump(key, lane);
    },
    close() {
      closed = true;
      for (const waiter of [...waiters]) waiter.settle({ kind: 'closed' });
      for (const lane of lanes.values()) if (lane.timer) clearTimeout(lane.timer);
      lanes.clear();
    },
  };
}
