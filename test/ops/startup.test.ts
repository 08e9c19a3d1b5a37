import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { providerPlugins } from '../support/freeway.ts';
import { freewayBin, runToExit, type Finished } from '../support/process.ts';

/** Runs the `freeway` command with these settings and expects it to refuse to start. */
async function expectCannotStart(env: Record<string, string>, says: RegExp): Promise<void> {
  const run: Finished = await runToExit(process.execPath, [freewayBin], { HOST: '127.0.0.1', PORT: '0', ...env });
  const what = `${JSON.stringify(env)}:\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
  expect(run.code, what).to.equal(1);
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  expect(lines, what).to.have.length(1);
  expect(lines[0], what).to.match(/^Freeway cannot start: /);
  expect(lines[0], what).to.match(says);
  expect(run.stdout, what).to.not.match(/listening on/);
}

/** Runs `check` over `items`, a few at a time: each one is a process start. */
async function inBatches<T>(items: readonly T[], check: (item: T) => Promise<void>, size = 4): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(check));
}

describe('start-up: a bad setting is one line on stderr and exit code 1', function () {
  this.timeout(120_000);

  const cases: Array<[env: Record<string, string>, says: RegExp]> = [
    [{ PORT: '70000' }, /PORT must be an integer from 0 to 65535, got "70000"/],
    [{ PORT: 'http' }, /PORT must be an integer/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"/],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT must be one of json, pretty/],
    [{ HOST: 'not a host!' }, /HOST must be an IP address or a host name/],
    [{ HOST: 'not-a-host.invalid' }, /cannot listen on not-a-host\.invalid:0 \(HOST, PORT\): the host name does not resolve/],
    [{ HOST: '192.0.2.1' }, /cannot listen on 192\.0\.2\.1:0 \(HOST, PORT\): the address is not one of this machine's/],
    [{ WORKERS: '0' }, /WORKERS must be auto or an integer >= 1/],
    [{ RATE_LIMIT_MAX: '0' }, /RATE_LIMIT_MAX must be an integer >= 1/],
    [{ RATE_LIMIT_IPV6_SUBNET: '96' }, /^Freeway cannot start: RATE_LIMIT_IPV6_SUBNET must be a prefix length from 32 to 64, or 128 to count each IPv6 address apart, got "96"$/],
    [{ BODY_LIMIT: 'lots' }, /BODY_LIMIT must be a size such as 20mb/],
    [{ ROUTING: 'fastest' }, /ROUTING must be quality, latency or priority/],
    [{ ROUTING_EXPLORE_SHARE: '2' }, /ROUTING_EXPLORE_SHARE must be a number from 0 to 1/],
    [{ SHUTDOWN_TIMEOUT_MS: '-1' }, /SHUTDOWN_TIMEOUT_MS must be an integer >= 0/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /REDIS_URL must start with redis:\/\/ or rediss:\/\//],
    [{ REDIS_URL: 'redis://127.0.0.1:6379' }, /KEY_HASH_SECRET .* is required when REDIS_URL is set/],
    [{ METRICS: 'maybe' }, /METRICS must be one of on, off/],
    [{ METRICS_PORT: '99999' }, /METRICS_PORT must be an integer from 1 to 65535/],
    [{ METRICS_HOST: '127.0.0.1' }, /METRICS_HOST needs METRICS_PORT/],
    [{ HOSTED_TOOLS: 'ignore' }, /^Freeway cannot start: HOSTED_TOOLS must be one of drop, reject, got "ignore"$/],
    [{ MODEL_MAP: 'gpt-4o' }, /^Freeway cannot start: MODEL_MAP must be comma-separated glob=target pairs such as gpt-4o\*=free:tool-use, got "gpt-4o"$/],
    [{ MODEL_MAP: 'gpt-4o=free:nothing' }, /^Freeway cannot start: MODEL_MAP maps gpt-4o to free:nothing, which is not a model or alias of the catalog \(GET \/v1\/models lists them\)$/],
    [{ GROQ_BASE_URL: 'ftp://example.com/v1' }, /GROQ_BASE_URL must be an http:\/\/ or https:\/\/ URL, got "ftp:\/\/example.com\/v1"/],
  ];

  it('names the setting and what is wrong with it', async () => {
    await inBatches(cases, ([env, says]) => expectCannotStart(env, says));
  });

  it('checks the base URL of every provider (<ID>_BASE_URL) before listening', async () => {
    const names = (await providerPlugins()).map((plugin) => `${plugin.id.toUpperCase()}_BASE_URL`);
    await inBatches(names, (name) => expectCannotStart({ [name]: 'not-a-url' }, new RegExp(`^Freeway cannot start: ${name} must be an http:// or https:// URL, got "not-a-url"$`)));
  });

  it('never echoes the password of a bad base URL', async () => {
    const run = await runToExit(process.execPath, [freewayBin], { GROQ_BASE_URL: 'ftp://user:s3cretPassw0rd@example.com/' });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.equal('Freeway cannot start: GROQ_BASE_URL must be an http:// or https:// URL, got a URL with a password\n');
  });

  describe('a port that is already in use', () => {
    let blocker: Server;
    let port: number;
    before(async () => {
      blocker = createServer();
      blocker.listen(0, '127.0.0.1');
      await once(blocker, 'listening');
      port = (blocker.address() as { port: number }).port;
    });
    after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

    it('one process: one line, exit 1', async () => {
      await expectCannotStart({ PORT: String(port) }, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(HOST, PORT\\): the port is already in use \\(EADDRINUSE\\)$`));
    });

    it('WORKERS=2: the primary reports it once and exits 1 instead of restarting workers', async () => {
      const started = Date.now();
      await expectCannotStart({ PORT: String(port), WORKERS: '2' }, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(HOST, PORT\\): the port is already in use`));
      expect(Date.now() - started).to.be.below(15_000);
    });
  });
});
