/**
 * Lets a stopping server answer the requests still running when
 * SHUTDOWN_TIMEOUT_MS runs out, instead of cutting them silently. Each running
 * completion registers how it stops; `interrupt` calls them all once. Bounded by
 * the requests in flight: each one removes itself when it ends.
 */
export interface ShutdownGate {
  /** True once `interrupt` has run. */
  readonly interrupted: boolean;
  /** Registers `stop` for the running request; call the returned function when it ends. */
  track(stop: () => void): () => void;
}

export interface Shutdown {
  readonly gate: ShutdownGate;
  /** Stops every tracked request; later ones are stopped as they register. */
  interrupt(): void;
}


export function createShutdown(): Shutdown {
  const running = new Set<() => void>();
  let interrupted = false;
  const gate: ShutdownGate = {
    get interrupted() {
      return interrupted;
    },
    track(stop) {
      if (interrupted) {
        queueMicrotask(stop);
        return () => {};
      }
      running.add(stop);
      return () => running.delete(stop);
    },
  };
  return {
    gate,
    interrupt() {
      if (interrupted) return;
      interrupted = true;
      for (const stop of running) stop();
      running.clear();
    },
  };
}
