import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { settingGroups, withSettingsTable } from '../../server/config/describe.ts';
import { loadConfig } from '../../server/config/index.ts';
import { eachSetting } from '../../server/config/settings.ts';
import { providerPlugins } from '../support/plugins.ts';
import { freewayBin, runToExit } from '../support/process.ts';

const root = join(import.meta.dirname, '..', '..');

/** The value at a dotted path of the config (`limits.body`). */
function at(config: object, path: readonly string[]): unknown {
  let value: unknown = config;
  for (const name of path) value = (value as Record<string, unknown>)[name];
  return value;
}

describe('settings: one table makes the Config, --help and docs/configuration.md', function () {
  this.timeout(30_000);

  it('every setting has a distinct variable, a doc line and what it accepts, and its own default reads', async () => {
    const plugins = await providerPlugins();
    const names = new Set<string>();
    for (const { setting } of eachSetting()) {
      expect(names.has(setting.env), setting.env).to.equal(false);
      names.add(setting.env);
      expect(setting.doc, setting.env).to.match(/\S/);
      expect(setting.accepts, setting.env).to.match(/\S/);
      // The default, written as a user would write it, is a valid value (METRICS_HOST needs METRICS_PORT).
      if (setting.default !== undefined && setting.default !== '') {
        expect(() => loadConfig({ METRICS_PORT: '9464', [setting.env]: setting.default }, plugins), setting.env).to.not.throw();
      }
    }
    expect(names.size).to.be.at.least(50);
  });

  it("each integer setting's value lands where the table puts it in the nested Config", async () => {
    const plugins = await providerPlugins();
    let checked = 0;
    for (const { path, setting } of eachSetting()) {
      // METRICS_PORT and METRICS_HOST become config.metrics, a union: test/http/metrics.test.ts and startup cover them.
      if (!setting.accepts.startsWith('integer') || path[0] === 'metrics') continue;
      const min = Number(/-?\d+/.exec(setting.accepts)?.[0]);
      const value = min + 1;
      // The OTEL_* settings are read only when OTEL_TRACES_EXPORTER asks for traces.
      const on = path[0] === 'tracing' ? { OTEL_TRACES_EXPORTER: 'otlp' } : {};
      expect(at(loadConfig({ ...on, [setting.env]: String(value) }, plugins), path), setting.env).to.equal(value);
      checked++;
    }
    expect(checked).to.be.at.least(25);
  });

  it('the Config is nested and frozen: a consumer cannot change a setting for the others', async () => {
    const config = loadConfig({ BODY_LIMIT: '1mb', MODEL_MAP: 'gpt-4o=free:auto' }, await providerPlugins());
    expect(config.limits.body).to.deep.equal({ bytes: 1024 ** 2, text: '1mb' });
    expect(config.timeouts.requestMs).to.equal(120_000);
    expect(config.routing).to.deep.equal({ strategy: 'quality', qualityBand: 3, exploreShare: 0.05, maxAttempts: 5, fitMargin: 0.2, learnedLimitMs: 86_400_000, maxWaitMs: 20_000, waitQueueMax: 256 });
    for (const part of [config, config.limits, config.limits.body, config.timeouts, config.rateLimit, config.state, config.models, config.api, config.api.modelMap, config.metrics]) {
      expect(Object.isFrozen(part)).to.equal(true);
    }
    expect(() => {
      (config.timeouts as { requestMs: number }).requestMs = 1;
    }).to.throw(TypeError);
    expect(config.timeouts.requestMs).to.equal(120_000);
  });

  it('an empty value is unset, but an empty ANTHROPIC_MODEL_MAP maps nothing; METRICS=off leaves METRICS_PORT unread', async () => {
    const plugins = await providerPlugins();
    expect(loadConfig({ PORT: '', BODY_LIMIT: '' }, plugins)).to.deep.include({ server: loadConfig({}, plugins).server });
    expect(loadConfig({ BODY_LIMIT: '' }, plugins).limits.body).to.deep.equal({ bytes: 20 * 1024 ** 2, text: '20mb' });
    expect(loadConfig({}, plugins).api.anthropicModelMap.map(({ glob, target }) => `${glob}=${target}`)).to.deep.equal(['*haiku*=free:fast', 'claude-*=free:tool-use']);
    expect(loadConfig({ ANTHROPIC_MODEL_MAP: '' }, plugins).api.anthropicModelMap).to.deep.equal([]);
    expect(() => loadConfig({ ROUTING: '' }, plugins)).to.throw('ROUTING must be quality, latency or priority, got ""');
    expect(loadConfig({ METRICS: 'off', METRICS_PORT: 'soon', METRICS_HOST: 'not a host!' }, plugins).metrics).to.deep.equal({ mode: 'off' });
    expect(loadConfig({ METRICS_PORT: '9464' }, plugins).metrics).to.deep.equal({ mode: 'separate', host: '127.0.0.1', port: 9464 });
  });

  it('docs/configuration.md holds the table as settings.ts declares it (npm run docs:config writes it)', () => {
    const doc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    expect(withSettingsTable(doc) === doc, 'docs/configuration.md is stale: run npm run docs:config').to.equal(true);
    for (const group of settingGroups()) for (const row of group.rows) expect(doc).to.include(`| \`${row.env}\` | ${row.shownDefault.replaceAll('|', '\\|')} |`);
  });

  it('freeway --help prints every setting with its default, from the table', async () => {
    const run = await runToExit(process.execPath, [freewayBin, '--help'], {});
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^Usage: freeway \[--port <port>\] \[--host <host>\]\n/);
    for (const group of settingGroups()) {
      expect(run.stdout).to.include(`\n${group.title}:\n`);
      for (const row of group.rows) expect(run.stdout).to.include(`\n  ${row.env} (default: ${row.shownDefault.replaceAll('`', '')})\n`);
    }
  });
});
