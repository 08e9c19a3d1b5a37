// @ts-check
// Connect: this Freeway's base URL and set-ups for the clients people point at it, with the key
// headers as environment-variable placeholders (the keys themselves only when asked). The recipes are
// those of the README, docs/clients.md and docs/messages.md; docs/console.md cites the Gemini CLI's.
import { ANONYMOUS, KEYLESS_HEADER, currentKeys, keylessOn } from './keys.js';
import { byId, buttonById, copyButton, el, inputById, onChange, selectById, shellQuote, state } from './shared.js';

/**
 * One key header of a set-up: `literal` puts the key itself, else the environment variable `env` stands for it.
 * @typedef {{ header: string, env: string, key: string, literal: boolean }} HeaderValue
 * @typedef {{ id: string, label: string, where: string, render: (origin: string, headers: HeaderValue[]) => string }} ClientSetup
 */

/** `GROQ_API_KEY` for Groq. @param {string} providerId */
const envName = (providerId) => `${providerId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`;

/** A value inside a POSIX shell's double quotes. @param {string} text */
const inDoubleQuotes = (text) => text.replace(/[\\"$`]/g, '\\$&');

/** `X-Groq-Key: $GROQ_API_KEY` inside double quotes. @param {HeaderValue} value */
const headerLine = (value) => `${value.header}: ${value.literal ? inDoubleQuotes(value.key) : `$${value.env}`}`;

/** @param {HeaderValue[]} headers @param {(value: HeaderValue) => string} entry @param {string} indent */
const entries = (headers, entry, indent = ' ') => headers.map(entry).join(`,${indent}`);

/**
 * The key headers of a curl command, one `-H` a line.
 * @param {HeaderValue[]} headers
 */
export function curlHeaders(headers) {
  return headers.map((value) => `  -H ${value.literal ? shellQuote(`${value.header}: ${value.key}`) : `"${value.header}: $${value.env}"`}`);
}

/** @type {ClientSetup[]} */
const CLIENTS = [
  {
    id: 'curl',
    label: 'curl',
    where: 'A first request, from a shell:',
    render: (origin, headers) =>
      [
        `curl -s ${origin}/v1/chat/completions -H 'Content-Type: application/json' \\`,
        ...curlHeaders(headers).map((line) => `${line} \\`),
        `  -d '{"model": "free:auto", "messages": [{"role": "user", "content": "Say hello"}]}'`,
      ].join('\n'),
  },
  {
    id: 'openai-js',
    label: 'OpenAI SDK (JavaScript)',
    where: 'In your program (npm install openai):',
    render: (origin, headers) =>
      [
        "import OpenAI from 'openai';",
        '',
        'const client = new OpenAI({',
        `  baseURL: ${JSON.stringify(`${origin}/v1`)},`,
        "  apiKey: 'unused', // Freeway reads the key headers",
        `  defaultHeaders: { ${entries(headers, (v) => `${JSON.stringify(v.header)}: ${v.literal ? JSON.stringify(v.key) : `process.env.${v.env}`}`)} },`,
        '});',
        "const reply = await client.chat.completions.create({ model: 'free:auto', messages: [{ role: 'user', content: 'Say hello' }] });",
        'console.log(reply.choices[0].message.content);',
      ].join('\n'),
  },
  {
    id: 'openai-python',
    label: 'OpenAI SDK (Python)',
    where: 'In your program (pip install openai):',
    render: (origin, headers) =>
      [
        'import os',
        'from openai import OpenAI',
        '',
        'client = OpenAI(',
        `    base_url=${JSON.stringify(`${origin}/v1`)},`,
        '    api_key="unused",  # Freeway reads the key headers',
        `    default_headers={${entries(headers, (v) => `${JSON.stringify(v.header)}: ${v.literal ? JSON.stringify(v.key) : `os.environ[${JSON.stringify(v.env)}]`}`)}},`,
        ')',
        'reply = client.chat.completions.create(model="free:auto", messages=[{"role": "user", "content": "Say hello"}])',
        'print(reply.choices[0].message.content)',
      ].join('\n'),
  },
  {
    id: 'anthropic',
    label: 'Anthropic SDK (JavaScript)',
    where: 'In your program (npm install @anthropic-ai/sdk); claude-* names go to Freeway\'s aliases:',
    render: (origin, headers) =>
      [
        "import Anthropic from '@anthropic-ai/sdk';",
        '',
        'const client = new Anthropic({',
        `  baseURL: ${JSON.stringify(origin)},`,
        "  apiKey: 'unused', // Freeway reads the key headers",
        `  defaultHeaders: { ${entries(headers, (v) => `${JSON.stringify(v.header)}: ${v.literal ? JSON.stringify(v.key) : `process.env.${v.env}`}`)} },`,
        '});',
        "const message = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] });",
        'console.log(message.content);',
      ].join('\n'),
  },
  {
    id: 'claude-code',
    label: 'Claude Code',
    where: 'In the shell you start claude from:',
    render: (origin, headers) =>
      [
        `export ANTHROPIC_BASE_URL=${origin}`,
        'export ANTHROPIC_AUTH_TOKEN=unused      # Claude Code wants one; Freeway ignores it',
        `export ANTHROPIC_CUSTOM_HEADERS="${headers.map(headerLine).join('\n')}"`,
        'claude',
      ].join('\n'),
  },
  {
    id: 'codex',
    label: 'Codex',
    where: 'In ~/.codex/config.toml (or $CODEX_HOME/config.toml):',
    render: (origin, headers) => {
      const fromEnv = headers.filter((v) => !v.literal);
      const literal = headers.filter((v) => v.literal);
      return [
        'model = "free:tool-use"',
        'model_provider = "freeway"',
        '',
        '[model_providers.freeway]',
        'name = "Freeway"',
        `base_url = ${JSON.stringify(`${origin}/v1`)}`,
        'wire_api = "responses"',
        ...(fromEnv.length > 0 ? [`env_http_headers = { ${entries(fromEnv, (v) => `${JSON.stringify(v.header)} = ${JSON.stringify(v.env)}`)} }`] : []),
        ...(literal.length > 0 ? [`http_headers = { ${entries(literal, (v) => `${JSON.stringify(v.header)} = ${JSON.stringify(v.key)}`)} }`] : []),
      ].join('\n');
    },
  },
  {
    id: 'opencode',
    label: 'opencode',
    where: 'In opencode.json (the project\'s) or ~/.config/opencode/opencode.json:',
    render: (origin, headers) =>
      [
        '{',
        '  "provider": {',
        '    "freeway": {',
        '      "npm": "@ai-sdk/openai-compatible",',
        '      "name": "Freeway",',
        `      "options": { "baseURL": ${JSON.stringify(`${origin}/v1`)}, "apiKey": "unused", "headers": { ${entries(headers, (v) => `${JSON.stringify(v.header)}: ${JSON.stringify(v.literal ? v.key : `{env:${v.env}}`)}`)} } },`,
        '      "models": { "free:tool-use": { "name": "Freeway free:tool-use" } }',
        '    }',
        '  },',
        '  "model": "freeway/free:tool-use"',
        '}',
      ].join('\n'),
  },
  {
    id: 'gemini-cli',
    label: 'Gemini CLI',
    where: 'In the shell you start gemini from (Freeway serves Gemini\'s API under /v1beta):',
    render: (origin, headers) =>
      [
        `export GOOGLE_GEMINI_BASE_URL=${origin}`,
        'export GEMINI_API_KEY=unused           # Gemini CLI wants one; Freeway reads the key headers',
        `export GEMINI_CLI_CUSTOM_HEADERS="${headers.map(headerLine).join(', ')}"`,
        'gemini',
      ].join('\n'),
  },
];

/** Gemini CLI takes a plain-http base URL only on the machine itself (docs/console.md cites where). @param {string} origin */
function localOnly(origin) {
  const { protocol, hostname } = new URL(origin);
  return protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(hostname);
}

/**
 * The key headers of the keys entered (those the server refused left out), as placeholders unless
 * `withKeys`; `anonymous` and `X-Freeway-Keyless: on` are no secret and are always written out. With no key
 * and no keyless calls, Groq's header as an example.
 * @param {boolean} withKeys @returns {{ headers: HeaderValue[], example: boolean }}
 */
export function setupHeaders(withKeys) {
  const keys = currentKeys();
  const entered = state.providers.filter((provider) => keys[provider.id] !== undefined && !state.refused.has(provider.id));
  /** @type {HeaderValue[]} */
  const keyless = keylessOn() ? [{ header: KEYLESS_HEADER, env: '', key: 'on', literal: true }] : [];
  if (entered.length === 0 && keyless.length > 0) return { headers: keyless, example: false };
  if (entered.length === 0) {
    const example = state.providers.find((provider) => provider.id === 'groq') ?? state.providers[0];
    return { headers: example ? [{ header: example.header, env: envName(example.id), key: '', literal: false }] : [], example: true };
  }
  return {
    headers: [
      ...keyless,
      ...entered.map((provider) => {
        const key = keys[provider.id] ?? '';
        return { header: provider.header, env: envName(provider.id), key, literal: withKeys || key === ANONYMOUS };
      }),
    ],
    example: false,
  };
}

function renderSetup() {
  const origin = window.location.origin;
  const client = CLIENTS.find((candidate) => candidate.id === selectById('client').value) ?? /** @type {ClientSetup} */ (CLIENTS[0]);
  const { headers, example } = setupHeaders(inputById('setup-keys').checked);
  byId('setup-text').textContent = client.render(origin, headers);
  const variables = headers.filter((value) => !value.literal).map((value) => value.env);
  const notes = [client.where];
  if (example) notes.push('No key entered yet: Groq\'s header stands as an example; enter your keys above to get theirs.');
  else if (variables.length > 0) notes.push(`Set ${variables.join(', ')} to your ${variables.length === 1 ? 'key' : 'keys'} first, or tick "Put my keys in the set-ups".`);
  if (client.id === 'gemini-cli' && localOnly(origin)) notes.push('Gemini CLI takes a plain-http base URL only on localhost: reach this Freeway over HTTPS (a reverse proxy) to use it from another machine.');
  byId('setup-note').replaceChildren(...notes.map((note) => el('span', { class: 'setup-line', text: note })));
}

export function wireConnect() {
  const origin = window.location.origin;
  byId('base-url').textContent = `${origin}/v1`;
  byId('anthropic-base-url').textContent = origin;
  const picker = selectById('client');
  picker.replaceChildren(...CLIENTS.map((client) => el('option', { value: client.id, text: client.label })));
  picker.addEventListener('change', renderSetup);
  inputById('setup-keys').addEventListener('change', renderSetup);
  const status = byId('connect-status');
  copyButton(buttonById('copy-base-url'), status, () => `${origin}/v1`);
  copyButton(buttonById('copy-setup'), status, () => byId('setup-text').textContent ?? '');
  onChange('keys', renderSetup);
  onChange('states', renderSetup);
  renderSetup();
}
