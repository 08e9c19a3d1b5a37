import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { faults } from '../support/faults.ts';
import { hello, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { alive, freePort, freewayBin, portIsFree, repoRoot, runToExit, waitForHealth } from '../support/process.ts';
import { serverNodeFlags } from '../../bin/node-flags.mjs';
import { startUpstream, type FakeUpstream } from '../support/upstream.ts';

const shutdownTimeoutMs = 1_000;
/** Process exit, connection teardown and npm's own exit on a busy machine. */
const slackMs = 4_000;

/** The Node.js on PATH outside node_modules: what a user's shell runs (20 on the CI machine). */
function machineNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '' || dir.includes('node_modules')) continue;
    const candidate = join(dir, 'node');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

const bundledVersion = (JSON.parse(readFileSync(join(repoRoot, 'node_modules/node/package.json'), 'utf8')) as { version: string }).version;

/** The direct children of a process (Linux `ps`), to find the server under npm or the bin. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((child) => child > 0);
  } catch {
    return [];
  }
}

interface Service {
  readonly proc: ChildProcess;
  readonly port: number;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

describe('running as a service: one SIGTERM stops it cleanly', function () {
  this.timeout(60_000);
  let upstream: FakeUpstream;
  const started: ChildProcess[] = [];
  const pids: number[] = [];

  before(async () => {
    upstream = await startUpstream();
  });
  afterEach(() => {
    for (const proc of started.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    for (const pid of pids.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  after(() => upstream.close());

  async function start(command: string, args: (port: number) => string[], env: Record<string, string> = {}): Promise<Service> {
    const port = await freePort();
    const proc = spawn(command, args(port), {
      cwd: repoRoot,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        GROQ_BASE_URL: upstream.url,
        SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
        FIRST_TOKEN_TIMEOUT_MS: '60000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(proc);
    const chunks: string[] = [];
    proc.stdout?.setEncoding('utf8').on('data', (text: string) => chunks.push(text));
    proc.stderr?.setEncoding('utf8').on('data', (text: string) => chunks.push(text));
    const exited = once(proc, 'exit').then(([code]) => code as number | null);
    const output = (): string => chunks.join('');
    await waitForHealth(proc, port, output);
    return { proc, port, output, exited };
  }

  /** Holds one request open on a hanging upstream, so that shutdown has to cut it. */
  async function holdRequest(port: number): Promise<{ pending: Promise<unknown> }> {
    upstream.handle(faults.hangBeforeHeaders());
    upstream.requests.length = 0;
    const pending = postChat(`http://127.0.0.1:${port}`, hello('free:auto'), keyHeaders('groq')).catch((error: Error) => error);
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    return { pending };
  }

  async function expectStopped(service: Service, serverPids: readonly number[]): Promise<void> {
    const signalled = performance.now();
    service.proc.kill('SIGTERM');
    const code = await Promise.race([service.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), shutdownTimeoutMs + slackMs))]);
    expect(code, `still running ${shutdownTimeoutMs + slackMs} ms after SIGTERM:\n${service.output()}`).to.not.equal('hung');
    expect(code, service.output()).to.equal(0);
    expect(performance.now() - signalled).to.be.below(shutdownTimeoutMs + slackMs);
    for (const pid of serverPids) {
      // An exited child may linger a moment as a zombie of its parent; give it that moment.
      const deadline = Date.now() + 1_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(alive(pid), `server process ${pid} is still running`).to.equal(false);
    }
    expect(await portIsFree(service.port), 'the port is free again').to.equal(true);
  }

  it('npm start: SIGTERM to npm drains, and npm, the server and the port are gone within SHUTDOWN_TIMEOUT_MS', async () => {
    const service = await start('npm', () => ['start', '--silent']);
    const servers = childrenOf(service.proc.pid as number);
    expect(servers, 'npm runs the server as its child').to.have.length(1);
    pids.push(...servers);
    const { pending } = await holdRequest(service.port);
    await expectStopped(service, servers);
    await pending;
  });

  it('npm start with stdout piped to a reader that exits early: one SIGTERM still stops it', async () => {
    const service = await start('npm', () => ['start', '--silent']);
    const servers = childrenOf(service.proc.pid as number);
    pids.push(...servers);
    // The reader goes away; every later log line meets a closed pipe (EPIPE).
    service.proc.stdout?.destroy();
    for (let i = 0; i < 5; i++) await fetch(`http://127.0.0.1:${service.port}/health`);
    const { pending } = await holdRequest(service.port);
    await expectStopped(service, servers);
    await pending;
  });

  it('LOG_FORMAT=pretty writes readable lines for a terminal', async () => {
    const service = await start(process.execPath, () => [freewayBin], { LOG_FORMAT: 'pretty' });
    await fetch(`http://127.0.0.1:${service.port}/v1/models`);
    await expectStopped(service, []);
    const lines = service.output().split('\n').filter((line) => line.trim() !== '');
    expect(lines.some((line) => /INFO.*Freeway listening on http:\/\/127\.0\.0\.1:\d+/.test(line)), service.output()).to.equal(true);
    expect(lines.some((line) => /INFO.*GET \/v1\/models 200 \d+ms/.test(line)), service.output()).to.equal(true);
    for (const line of lines) expect(line.trimStart().startsWith('{'), line).to.equal(false);
  });

  /** The arguments a running process was started with (Linux /proc). */
  const commandLine = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((arg) => arg !== '');

  // What the command adds on this machine: 32 MB semi-spaces wherever Node has more than 2 GB, and no pretenuring.
  const serverFlags = serverNodeFlags([], process.env);

  it(`the freeway command serves from its own process with its Node flags (here: ${serverFlags.join(' ') || 'none'}), and so do its workers`, async () => {
    const service = await start(process.execPath, () => [freewayBin]);
    // Same pid: the command became the server (execve); no parent is left to pass signals on.
    expect(childrenOf(service.proc.pid as number), 'no child process').to.deep.equal([]);
    expect(commandLine(service.proc.pid as number).slice(1)).to.deep.equal([...serverFlags, freewayBin]);
    await expectStopped(service, []);

    const cluster = await start(process.execPath, () => [freewayBin], { WORKERS: '2' });
    const workers = childrenOf(cluster.proc.pid as number);
    expect(workers).to.have.length(2);
    pids.push(...workers);
    for (const worker of workers) expect(commandLine(worker)).to.include.members(serverFlags);
    await expectStopped(cluster, workers);
  });

  it('heap flags the user chose are kept: in NODE_OPTIONS or on the command line', async () => {
    // A young generation size of the user's own: the command adds only what the user left open.
    const fromEnv = await start(process.execPath, () => [freewayBin], { NODE_OPTIONS: '--max-semi-space-size=4' });
    expect(commandLine(fromEnv.proc.pid as number).slice(1)).to.deep.equal(['--no-allocation-site-pretenuring', freewayBin]);
    await expectStopped(fromEnv, []);
    const fromArgs = await start(process.execPath, () => ['--max_semi_space_size=8', freewayBin]);
    expect(commandLine(fromArgs.proc.pid as number).slice(1)).to.deep.equal(['--max_semi_space_size=8', '--no-allocation-site-pretenuring', freewayBin]);
    await expectStopped(fromArgs, []);
    // Both chosen: nothing added, and the command does not run itself again.
    const both = await start(process.execPath, () => ['--max-semi-space-size=8', '--allocation-site-pretenuring', freewayBin]);
    expect(commandLine(both.proc.pid as number).slice(1)).to.deep.equal(['--max-semi-space-size=8', '--allocation-site-pretenuring', freewayBin]);
    await expectStopped(both, []);
  });

  const node = machineNode();
  it(`the freeway command under the machine's Node (${node ?? 'none on PATH'}) runs on Node ${bundledVersion} when that one is too old`, async function () {
    expect(node, 'a node on PATH outside node_modules').to.be.a('string');
    const machineVersion = execFileSync(node as string, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    const [major = 0, minor = 0] = machineVersion.split('.').map(Number);
    const tooOld = major < 22 || (major === 22 && minor < 18);
    const version = await runToExit(node as string, [freewayBin, '--version'], {});
    expect(version.code).to.equal(0);
    expect(version.stdout).to.equal(`freeway 0.1.0 (Node.js v${tooOld ? bundledVersion : machineVersion})\n`);

    const service = await start(node as string, (port) => [freewayBin, '--port', String(port)]);
    const servers = tooOld ? childrenOf(service.proc.pid as number) : [];
    if (tooOld) expect(servers, 'the bin runs the server as its child').to.have.length(1);
    // The server, whichever process it is, has the command's V8 flags.
    for (const pid of tooOld ? servers : [service.proc.pid as number]) expect(commandLine(pid)).to.include.members(serverFlags);
    pids.push(...servers);
    const { pending } = await holdRequest(service.port);
    await expectStopped(service, servers);
    await pending;
  });
});

describe("the server's V8 heap flags", () => {
  const GB = 1024 ** 3;
  const noPretenuring = '--no-allocation-site-pretenuring';

  it('caps the young generation at 32 MB semi-spaces where V8 would choose more (more than 2 GB for Node), and leaves it to V8 where it chooses less', () => {
    expect(serverNodeFlags([], {}, 24 * GB)).to.deep.equal(['--max-semi-space-size=32', noPretenuring]);
    expect(serverNodeFlags([], {}, 3 * GB)).to.deep.equal(['--max-semi-space-size=32', noPretenuring]);
    // V8 picks 32 MB at 2 GB, 16 MB at 1 GB, 1 MB at 512 MB: the flag would only raise those.
    expect(serverNodeFlags([], {}, 2 * GB)).to.deep.equal([noPretenuring]);
    expect(serverNodeFlags([], {}, 0.5 * GB)).to.deep.equal([noPretenuring]);
  });

  it("keeps the user's own young generation size, in either spelling, on the command line or in NODE_OPTIONS", () => {
    expect(serverNodeFlags(['--max-semi-space-size=8'], {}, 24 * GB)).to.deep.equal([noPretenuring]);
    expect(serverNodeFlags(['--max_semi_space_size=8'], {}, 24 * GB)).to.deep.equal([noPretenuring]);
    expect(serverNodeFlags([], { NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=64' }, 24 * GB)).to.deep.equal([noPretenuring]);
    // Other flags are no choice of size.
    expect(serverNodeFlags(['--max-old-space-size=512'], { NODE_OPTIONS: '--enable-source-maps' }, 24 * GB)).to.deep.equal(['--max-semi-space-size=32', noPretenuring]);
  });

  it("turns V8's allocation-site pretenuring off, unless the user chose it either way on the command line", () => {
    expect(serverNodeFlags(['--allocation-site-pretenuring'], {}, 24 * GB)).to.deep.equal(['--max-semi-space-size=32']);
    expect(serverNodeFlags(['--no_allocation_site_pretenuring'], {}, 0.5 * GB)).to.deep.equal([]);
    expect(serverNodeFlags(['--allocation-site-pretenuring'], { NODE_OPTIONS: '--max-semi-space-size=16' }, 24 * GB)).to.deep.equal([]);
    // A flag run again with its own flags adds nothing more: the command's execve is not repeated.
    const flags = serverNodeFlags([], {}, 24 * GB);
    expect(serverNodeFlags(flags, {}, 24 * GB)).to.deep.equal([]);
  });
});
