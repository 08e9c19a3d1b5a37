/**
 * `npm run new-provider <id>`: scaffolds providers/<id>/ as a working plugin for
 * a provider that speaks OpenAI's chat-completions format: index.ts (header, key
 * pattern, base URL, one model, error rules, factory) and fixtures.ts (a sample
 * key, error rows). It passes the plugin contract as generated; then replace the
 * placeholders (marked TODO) with the provider's documented facts.
 *
 * `--dir <folder>` scaffolds into another providers folder (the tests use a copy).
 */
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProviderPlugins } from '../providers/loader.ts';
import { keysDocPath, keysDocSource, readmePath, readmeSource } from './providers-doc.ts';

const usage = 'usage: npm run new-provider <id> [-- --dir <providers folder>]';

function fail(message: string): never {
  console.error(`new-provider: ${message}`);
  process.exit(1);
}

const args = process.argv.slice(2);
const repositoryProviders = fileURLToPath(new URL('../providers/', import.meta.url));
let dir = repositoryProviders;
const positional: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string;
  if (arg === '--dir') {
    const value = args[++i];
    if (!value) fail(`--dir needs a folder. ${usage}`);
    dir = resolve(value);
  } else if (arg.startsWith('-')) {
    fail(`unknown option ${arg}. ${usage}`);
  } else {
    positional.push(arg);
  }
}
if (positional.length !== 1) fail(`give exactly one provider id. ${usage}`);
const id = positional[0] as string;
if (!/^[a-z][a-z0-9]{1,31}$/.test(id)) {
  fail(`"${id}" is not a provider id: use 2 to 32 lower-case letters and digits, starting with a letter.`);
}
const folder = join(dir, id);
if (existsSync(folder)) fail(`${folder} already exists; pick another id or edit that plugin.`);

const plugins = await loadProviderPlugins(dir);
const name = `${id.charAt(0).toUpperCase()}${id.slice(1)}`;
const priority = Math.max(0, ...plugins.map((plugin) => plugin.priority)) + 10;
const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const sampleKey = `${id}_${Array.from({ length: 32 }, () => alphabet[randomInt(alphabet.length)]).join('')}`;
const variable = id.replace(/[^a-z]/g, '') || 'provider';

const index = `import { bearerAuth, openAICompatibleModel } from '../openai-compatible.ts';
import type { ProviderPlugin } from '../types.ts';

// TODO: replace every placeholder with ${name}'s documented facts; docs/adding-a-provider.md lists the rules.
const ${variable}: ProviderPlugin = {
  id: '${id}',
  name: '${name}',
  header: 'X-${name}-Key',
  // ${name}'s key format, so that a key an upstream echoes back is redacted. It must not match any model id.
  keyPatterns: [/${id}_[A-Za-z0-9]{24,}/],
  baseURL: 'https://api.${id}.example/v1',
  // Where a person gets a key, and what a free key gets, with the page that says so and the day you read it.
  keyUrl: 'https://${id}.example/keys',
  tier: { tier: 'free with limits', source: 'https://${id}.example/docs/rate-limits', checked: '2026-01-01' },
  priority: ${priority},
  models: [{ id: '${id}-chat', capabilities: ['fast', 'tool-use'], contextWindow: 32768 }],
  authHeaders: bearerAuth,
  // ${name}'s documented error answers; the rows they are tested with are in fixtures.ts.
  errorRules: [
    { name: 'rate limited', status: 429, kind: 'rate_limited' },
    { name: 'invalid API key', status: 401, kind: 'invalid_key' },
    { name: 'model not found', status: 404, kind: 'model_unavailable' },
    { name: 'context length exceeded', status: 400, body: /context_length_exceeded|maximum context length/i, kind: 'context_too_long' },
  ],
  createModel: (options) => openAICompatibleModel('${id}', options),
};

export default ${variable};
`;

const fixtures = `import type { ProviderFixtures } from '../types.ts';

// TODO: replace these OpenAI-format rows with ${name}'s own documented error bodies, each with its source.
const errors = 'https://platform.openai.com/docs/guides/error-codes (the OpenAI format ${name} follows)';

const fixtures: ProviderFixtures = {
  // Made up, in ${name}'s key format; never a real key.
  sampleKey: '${sampleKey}',
  errors: [
    {
      source: errors,
      name: 'rate limited, with Retry-After',
      status: 429,
      headers: { 'retry-after': '20' },
      body: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } },
      kind: 'rate_limited',
      retryAfter: 20,
    },
    {
      source: errors,
      name: 'invalid API key',
      status: 401,
      body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } },
      kind: 'invalid_key',
    },
    {
      source: errors,
      name: 'model not found',
      status: 404,
      body: { error: { message: 'The model \`${id}-nope\` does not exist.', type: 'invalid_request_error', code: 'model_not_found' } },
      kind: 'model_unavailable',
    },
    {
      source: errors,
      name: 'context length exceeded',
      status: 400,
      body: { error: { message: "This model's maximum context length is 32768 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } },
      kind: 'context_too_long',
    },
  ],
};

export default fixtures;
`;

await mkdir(folder);
await writeFile(join(folder, 'index.ts'), index);
await writeFile(join(folder, 'fixtures.ts'), fixtures);
if (dir === repositoryProviders) {
  // The README's and docs/keys.md's provider tables, with the new row (npm run docs writes them again after edits).
  const plugins = await loadProviderPlugins(dir);
  for (const [path, write] of [[readmePath, readmeSource], [keysDocPath, keysDocSource]] as const) {
    await writeFile(path, write(await readFile(path, 'utf8'), plugins));
  }
}
console.log(`new-provider: created ${folder}/index.ts and fixtures.ts (priority ${priority}). Replace the TODO placeholders, run npm run docs to write its rows again, then npm test.`);
