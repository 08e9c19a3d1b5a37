/**
 * Freeway in a child process on a free 127.0.0.1 port, for the attack scripts:
 * started from a checkout (this one by default) by its `freeway` command, as
 * `npm start` does (with the Node flags that command adds; the server keeps the
 * command's pid), with its RSS sampled from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/support/process.ts';

export interface FreewayChild {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** Resident set size now, in MB (0 once the process is gone). */
  rssMb(): number;
  /** Highest RSS seen by the sampler since start (or the last resetPeak), in MB. */
  peakRssMb(): number;
  resetPeak(): void;
  /** Whether the process is still running. */
  alive(): boolean;
  /** What the process wrote to stderr (last 4 KB). */
  stderr(): string;
  /** What it wrote to stdout (its log), when started with `keepLog` (at most the last 8 MB). */
  log(): string;
  stop(): Promise<void>;
}

const thisCheckout = fileURLToPath(new URL('../..', import.meta.url));


function readRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const LOG_KEPT = 8 * 1024 * 1024;

export async function startFreewayChild(env: Record<string, string> = {}, root = thisCheckout, keepLog = false): Promise<FreewayChild> {
  const port = await freePort();
  const child = spawn(process.execPath, [`${root.replace(/\/$/, '')}/bin/freeway.mjs`], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', keepLog ? 'pipe' : 'ignore', 'pipe'],
  });
  let log = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (text: string) => {
    log = (log + text).slice(-LOG_KEPT);
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderr = (stderr + text).slice(-4096);
  });
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
  });
  const pid = child.pid as number;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, readRssMb(pid));
  }, 100);
  sampler.unref();

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (exited) throw new Error(`Freeway exited at start: ${stderr}`);
    try {
      const response = await fetch(`${url}/health`);
      await response.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`Freeway did not answer within 15 s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  return {
    url,
    port,
    process: child,
    rssMb: () => (exited ? 0 : readRssMb(pid)),
    peakRssMb: () => Math.max(peak, exited ? 0 : readRssMb(pid)),
    resetPeak() {
      peak = readRssMb(pid);
    },
    alive: () => !exited,
    stderr: () => stderr,
    log: () => log,
    async stop() {
      clearInterval(sampler);
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
  };
}
