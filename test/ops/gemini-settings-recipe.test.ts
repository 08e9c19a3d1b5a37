/**
 * The README's Gemini CLI recipe writes ~/.gemini/settings.json: run as printed, in a shell with a
 * made-up HOME, on a new machine (no ~/.gemini) and on a used one (settings of its own), it must
 * create the folder and keep every other setting.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../support/process.ts';

const run = promisify(execFile);

/** The recipe's command as a page prints it: from `mkdir -p ~/.gemini` to the line naming the file. */
async function recipe(page: string): Promise<string> {
  const text = await readFile(join(repoRoot, page), 'utf8');
  const start = text.indexOf('mkdir -p ~/.gemini');
  const end = text.indexOf('~/.gemini/settings.json\n', start);
  if (start === -1 || end === -1) throw new Error(`${page} has no ~/.gemini/settings.json recipe`);
  return text.slice(start, end + '~/.gemini/settings.json'.length);
}

describe("the Gemini CLI settings recipe of README.md and docs/clients.md", function () {
  this.timeout(20_000);
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'freeway-gemini-home-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const settings = async (): Promise<unknown> => JSON.parse(await readFile(join(home, '.gemini/settings.json'), 'utf8'));

  it('is the same command on both pages', async () => {
    expect(await recipe('docs/clients.md')).to.equal(await recipe('README.md'));
  });

  it('on a new machine: creates ~/.gemini and the file with the API-key sign-in', async () => {
    await run('bash', ['-c', await recipe('README.md')], { env: { PATH: process.env.PATH ?? '', HOME: home } });
    expect(await settings()).to.deep.equal({ security: { auth: { selectedType: 'gemini-api-key' } } });
  });

  it('on a used machine: keeps every other setting, and the file stays valid JSON', async () => {
    await mkdir(join(home, '.gemini'));
    const own = { theme: 'GitHub', security: { folderTrust: { enabled: true }, auth: { selectedType: 'oauth-personal', useExternal: false } }, mcpServers: { files: { command: 'fs-server' } } };
    await writeFile(join(home, '.gemini/settings.json'), JSON.stringify(own));
    await run('bash', ['-c', await recipe('README.md')], { env: { PATH: process.env.PATH ?? '', HOME: home } });
    expect(await settings()).to.deep.equal({ ...own, security: { folderTrust: { enabled: true }, auth: { selectedType: 'gemini-api-key', useExternal: false } } });
  });
});
