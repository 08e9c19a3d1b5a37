import { expect } from 'chai';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { CONSOLE_MODULES } from '../../server/http/console.ts';
import { readdir } from 'node:fs/promises';
import { repoRoot } from '../support/process.ts';

const paths = ['/', ...CONSOLE_MODULES.map((file) => `/console/${file}`), '/console/console.css', '/console/icon.svg'];

describe('the console at GET /', function () {
  let freeway: RunningFreeway;
  before(async function () {
    freeway = await startFreeway();
  });
  after(async function () {
    await freeway.close();
  });

  it('serves its files with a strict policy: self only, no framing, no sniffing', async function () {
    for (const path of paths) {
      const response = await fetch(`${freeway.url}${path}`);
      expect(response.status, path).to.equal(200);
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy.split('; '), path).to.include.members(["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]);
      expect(policy).to.not.include('unsafe');
      expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(response.headers.get('x-frame-options')).to.equal('DENY');
      expect(await response.text()).to.not.equal('');
    }
    expect((await fetch(`${freeway.url}/`)).headers.get('content-type')).to.equal('text/html; charset=utf-8');
    for (const file of CONSOLE_MODULES) expect((await fetch(`${freeway.url}/console/${file}`)).headers.get('content-type'), file).to.equal('text/javascript; charset=utf-8');
  });

  it('serves every module of console/, and the page loads its script as a module', async function () {
    const modules = (await readdir(`${repoRoot}console`)).filter((file) => file.endsWith('.js')).sort();
    expect([...CONSOLE_MODULES].sort()).to.deep.equal(modules);
    const html = await (await fetch(`${freeway.url}/`)).text();
    expect(html).to.include('<script type="module" src="/console/console.js"></script>');
  });

  it('the page has no inline script, no inline style, no event attributes, and names no other origin', async function () {
    const html = await (await fetch(`${freeway.url}/`)).text();
    expect(html).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).to.not.match(/<style/i);
    expect(html).to.not.match(/\sstyle=/i);
    expect(html).to.not.match(/\son[a-z]+=/i);
    for (const path of paths) {
      const text = await (await fetch(`${freeway.url}${path}`)).text();
      // The SVG namespace is a name, not a place the page loads from.
      expect(text.replaceAll('http://www.w3.org/2000/svg', ''), path).to.not.match(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    }
  });

  it('CONSOLE=off: / is the JSON 404 as before', async function () {
    const off = await startFreeway({ env: { CONSOLE: 'off' } });
    try {
      await expectError(await fetch(`${off.url}/`), 404, 'invalid_request_error', "Unknown route: GET /. Freeway serves GET /v1/models (the models), GET /health (the providers' health) and the APIs under /v1; its README describes them.");
      await expectError(await fetch(`${off.url}/console/console.js`), 404, 'invalid_request_error', "Unknown route: GET /console/console.js. Freeway serves GET /v1/models (the models), GET /health (the providers' health) and the APIs under /v1; its README describes them.");
    } finally {
      await off.close();
    }
  });

  it('CONSOLE must be on or off', async function () {
    let message = '';
    try {
      await startFreeway({ env: { CONSOLE: 'yes' } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.equal('CONSOLE must be one of on, off, got "yes"');
  });
});
