/**
 * Attack: sockets that declare a 20 MB body, send 19 MB of it and stop.
 * Without bounds Freeway holds every byte until Node's 300 s request timeout
 * (about 1 GB for 50 sockets) and then closes with an empty 408. Holds when
 * each socket gets a JSON error (408 after BODY_TIMEOUT_MS, or 503 when the
 * body budget is full) within BODY_TIMEOUT_MS plus `slackMs`, and RSS stays
 * under `maxRssMb`.
 *
 *   node scripts/attack/stalled-bodies.ts [sockets] [bodyTimeoutMs]
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { startFreewayChild } from './freeway-child.ts';
import type { AttackResult } from './types.ts';

export interface StalledBodiesOptions {
  /** Sockets stalling at once (50). */
  readonly sockets: number;
  /** Declared body size (20 MB) and bytes sent before stalling (19 MB). */
  readonly declaredBytes: number;
  readonly sentBytes: number;
  /** BODY_TIMEOUT_MS for Freeway (10 s, a third of its default, to keep the run short). */
  readonly bodyTimeoutMs: number;
  /** How late past BODY_TIMEOUT_MS an answer may come (5 s). */
  readonly slackMs: number;
  /** BODY_BUFFER_MAX for Freeway, in MB (its default, 256). */
  readonly bodyBufferMaxMb: number;
  /**
   * The bound that must hold; by default RSS before the attack plus BODY_BUFFER_MAX
   * plus 128 MB for the dropped bodies' buffers that wait for the garbage collector.
   */
  readonly maxRssMb?: number;
  readonly env: Record<string, string>;
  /** Checkout of Freeway to attack (this one). */
  readonly root?: string;
}

const defaults: StalledBodiesOptions = {
  sockets: 50,
  declaredBytes: 20 * 1024 * 1024,
  sentBytes: 19 * 1024 * 1024,
  bodyTimeoutMs: 10_000,
  slackMs: 5_000,
  bodyBufferMaxMb: 256,
  env: {},
};

interface Outcome {
  status: number;
  json: boolean;
  ms: number;
}

export async function run(options: Partial<StalledBodiesOptions> = {}): Promise<AttackResult> {
  const opts = { ...defaults, ...options };
  const freeway = await startFreewayChild(
    { BODY_TIMEOUT_MS: String(opts.bodyTimeoutMs), BODY_BUFFER_MAX: `${opts.bodyBufferMaxMb}mb`, ...opts.env },
    opts.root,
  );
  const baselineMb = freeway.rssMb();
  const maxRssMb = opts.maxRssMb ?? Math.round(baselineMb + opts.bodyBufferMaxMb + 128);
  freeway.resetPeak();
  const piece = Buffer.alloc(1024 * 1024, 'x');
  const giveUpMs = opts.bodyTimeoutMs + opts.slackMs + 30_000;

  async function stall(): Promise<Outcome> {
    const socket: Socket = connect(freeway.port, '127.0.0.1');
    socket.on('error', () => {});
    await once(socket, 'connect');
    const started = performance.now();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.once('end', () => resolve());
    });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${opts.declaredBytes}\r\n\r\n`,
    );
    for (let sent = 0; sent < opts.sentBytes && !socket.destroyed; sent += piece.length) {
      if (!socket.write(piece.subarray(0, Math.min(piece.length, opts.sentBytes - sent)))) {
        await Promise.race([once(socket, 'drain'), closed]);
      }
    }
    const timer = setTimeout(() => socket.destroy(), giveUpMs);
    await closed;
    clearTimeout(timer);
    const ms = performance.now() - started;
    socket.destroy();
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    let json = false;
    try {
      json = typeof (JSON.parse(body) as { error?: { message?: unknown } }).error?.message === 'string';
    } catch {
      json = false;
    }
    return { status: Number(text.slice(9, 12)) || 0, json, ms };
  }

  const outcomes = await Promise.all(Array.from({ length: opts.sockets }, stall));
  const peakMb = freeway.peakRssMb();
  const afterMb = freeway.rssMb();
  const survived = freeway.alive();
  await freeway.stop();

  const count = (status: number): number => outcomes.filter((outcome) => outcome.status === status).length;
  const slowest = Math.max(...outcomes.map((outcome) => outcome.ms));
  const unanswered = outcomes.filter((outcome) => outcome.status === 0).length;
  const allJson = outcomes.every((outcome) => outcome.json);
  return {
    name: 'stalled-bodies',
    held: survived && unanswered === 0 && allJson && slowest <= opts.bodyTimeoutMs + opts.slackMs && peakMb < maxRssMb,
    figures: {
      sockets: opts.sockets,
      declaredMb: Math.round(opts.declaredBytes / 1048576),
      sentMb: Math.round(opts.sentBytes / 1048576),
      bodyTimeoutMs: opts.bodyTimeoutMs,
      answered408: count(408),
      answered503: count(503),
      answeredOther: opts.sockets - count(408) - count(503) - unanswered,
      unanswered,
      allAnswersJson: allJson ? 'yes' : 'no',
      slowestAnswerMs: Math.round(slowest),
      baselineRssMb: Math.round(baselineMb),
      peakRssMb: Math.round(peakMb),
      rssAfterMb: Math.round(afterMb),
      maxRssMb,
      processSurvived: survived ? 'yes' : 'no',
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sockets = process.argv[2] ? Number(process.argv[2]) : undefined;
  const bodyTimeoutMs = process.argv[3] ? Number(process.argv[3]) : undefined;
  const result = await run({ ...(sockets ? { sockets } : {}), ...(bodyTimeoutMs ? { bodyTimeoutMs } : {}) });
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.held ? 0 : 1;
}
