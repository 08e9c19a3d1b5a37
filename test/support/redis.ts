import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { freePort } from './process.ts';

/** The redis-server binary (Debian's `redis-server` package), when this machine has one. */
export const redisServerBinary = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => existsSync(path));

export const noRedisReason = 'redis-server is not installed (apt-get install redis-server; .ci/run installs it)';

let told = false;
/** In a before hook: skips the suite when there is no redis-server, saying why (mocha's skip takes no reason). */
export function skipWithoutRedis(context: Mocha.Context): void {
  if (redisServerBinary) return;
  if (!told) process.stdout.write(`      skipping the Redis tests: ${noRedisReason}\n`);
  told = true;
  context.skip();
}

export interface RunningRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** SIGKILL, as a crash would: nothing is saved. */
  kill(): Promise<void>;
}

/** A throwaway redis-server on 127.0.0.1: no persistence, gone when killed. */
export async function startRedis(port?: number): Promise<RunningRedis> {
  if (!redisServerBinary) throw new Error(noRedisReason);
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn(
    redisServerBinary,
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--daemonize', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = once(child, 'exit');
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 5 s: ${output}`)), 5_000);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => {
      output += text;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited: ${output}`));
    });
  });
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
