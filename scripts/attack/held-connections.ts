/**
 * Attack: many connections, each sending 8 KB of a request's headers and then
 * nothing, held open. Every connection costs Freeway 10 to 14 KB while its
 * headers are awaited (up to 20 s, then the next one takes its place), so
 * without a cap a caller with enough file descriptors holds as much memory as
 * it likes. Holds when Freeway keeps at most MAX_CONNECTIONS of them (the rest
 * closed as they arrive), its RSS stays under `maxRssMb`, and it answers again
 * as soon as the connections are let go.
 *
 *   node scripts/attack/held-connections.ts [sockets]
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';

export interface HeldConnectionsOptions {
  /** Connections to open (8,000, or fewer when this process may not open that many files). */
  readonly sockets: number;
  /** MAX_CONNECTIONS for Freeway (a quarter of `sockets`: below its default of 10,000 so that this process can open more than the cap). */
  readonly maxConnections?: number;
  /** Bytes of headers each connection sends before it goes quiet (8 KB). */
  readonly headerBytes: number;
  /** The bound that must hold (RSS before the attack plus 64 MB, by default). */
  readonly maxRssMb?: number;
  readonly env: Record<string, string>;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

/** How many files this process may open (Linux), less a margin for everything else. */
function socketBudget(): number {
  try {
    const limit = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return limit ? Number(limit) - 256 : 8_000;
  } catch {
    return 8_000;
  }
}

const defaults: HeldConnectionsOptions = { sockets: Math.min(8_000, socketBudget()), headerBytes: 8_000, env: {} };

export async function run(options: Partial<HeldConnectionsOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  const maxConnections = opts.maxConnections ?? Math.floor(opts.sockets / 4);
  const freeway = await startFreewayChild({ MAX_CONNECTIONS: String(maxConnections), ...opts.env }, opts.root);
  const port = Number(new URL(freeway.url).port);
  const baselineMb = freeway.rssMb();
  const maxRssMb = opts.maxRssMb ?? Math.round(baselineMb + 64);
  freeway.resetPeak();
  const started = performance.now();

  const sockets: Socket[] = [];
  let closedByFreeway = 0;
  let notOpened = 0;
  const partial = `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${'a'.repeat(Math.max(0, opts.headerBytes - 60))}`;
  for (let i = 0; i < opts.sockets; i++) {
    const socket = connect(port, '127.0.0.1');
    let mine = false;
    socket.on('error', () => {});
    socket.once('connect', () => socket.write(partial));
    socket.once('close', () => {
      if (!mine) closedByFreeway += 1;
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EMFILE' || error.code === 'EADDRNOTAVAIL') notOpened += 1;
    });
    sockets.push(Object.assign(socket, { release: () => (mine = true) }));
    // In batches, so that the listen backlog is not what refuses them.
    if (i % 250 === 249) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Let every connection arrive, send its headers and be kept or closed.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const keptOpen = sockets.filter((socket) => !socket.destroyed).length;
  const holdingMb = freeway.rssMb();
  const survived = freeway.alive();

  // The attacker lets go: Freeway answers again.
  for (const socket of sockets) {
    (socket as Socket & { release(): void }).release();
    socket.destroy();
  }
  let answeredAfterMs = -1;
  const released = performance.now();
  while (performance.now() - released < 5_000 && freeway.alive()) {
    try {
      const response = await fetch(`${freeway.url}/health`, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.ok) {
        answeredAfterMs = Math.round(performance.now() - released);
        break;
      }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  let dropped = 'n/a';
  if (answeredAfterMs >= 0) {
    const text = await (await fetch(`${freeway.url}/metrics`)).text();
    dropped = /^freeway_connections_dropped_total (\d+)/m.exec(text)?.[1] ?? 'not reported';
  }
  const peakMb = freeway.peakRssMb();
  await freeway.stop();

  return {
    name: 'held-connections',
    held: survived && keptOpen <= maxConnections && peakMb < maxRssMb && answeredAfterMs >= 0,
    figures: {
      sockets: opts.sockets,
      maxConnections,
      headerBytes: opts.headerBytes,
      keptOpen,
      closedByFreeway,
      notOpened,
      droppedInMetrics: dropped,
      baselineRssMb: Math.round(baselineMb),
      rssWhileHeldMb: Math.round(holdingMb),
      peakRssMb: Math.round(peakMb),
      maxRssMb,
      processSurvived: survived ? 'yes' : 'no',
      answeredAfterReleaseMs: answeredAfterMs,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await run(process.argv[2] ? { sockets: Number(process.argv[2]) } : {});
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
