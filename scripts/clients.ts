/**
 * `npm run clients`: the coding agents people point at Freeway, run for real
 * against Freeway and a fake provider, all on 127.0.0.1.
 *
 * Installs Codex CLI (`@openai/codex`), Claude Code (`@anthropic-ai/claude-code`),
 * opencode (`opencode-ai`) and Gemini CLI (`@google/gemini-cli`) on demand into a
 * cache folder (not into Freeway's dependencies), starts a fake provider on
 * 127.0.0.1 that plays Cerebras and Groq (OpenAI-compatible) and Google (Gemini's API) and
 * Freeway in front of it, configures each client as docs/clients.md says, and
 * runs one prompt that needs a shell-tool round trip: the fake provider asks the
 * client's shell tool to `echo` a nonce, and answers `ROUND TRIP OK <nonce>` only
 * once the tool's output with the nonce came back. A client passes when it prints
 * that answer. Gemini CLI runs twice: with a Groq key in its custom headers
 * (`gemini`), and with only a Google key as its GEMINI_API_KEY (`gemini-google`).
 * Then each of the four runs again with no provider key at all, only
 * `X-Freeway-Keyless: on` in its custom-header setting (`codex-keyless`,
 * `claude-keyless`, `opencode-keyless`, `gemini-keyless`), against fake keyless
 * providers (Kilo's and OVHcloud's) that refuse any Authorization header and
 * enforce their documented per-address limits.
 * Each run is bounded (CLIENT_TIMEOUT_MS, 180 s) and the script stops itself.
 *
 *   npm run clients                 # all of them
 *   npm run clients -- codex        # some of them: codex, claude, opencode, gemini, gemini-google, and each's -keyless
 *   CLIENTS_DIR=/path npm run clients   # where the CLIs are installed (default node_modules/.cache/freeway-clients)
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFreeway, type RunningFreeway } from '../test/support/freeway.ts';
import { pinnedClients } from './client-versions.ts';
import { openAISSE, startUpstream, usage, type SeenRequest } from '../test/support/upstream.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const clientsDir = process.env.CLIENTS_DIR ?? join(root, 'node_modules/.cache/freeway-clients');
const timeoutMs = Number(process.env.CLIENT_TIMEOUT_MS ?? 180_000);
const run = promisify(execFile);

/** The versions this script was last run with (docs/clients.md quotes the results); `CLIENT_VERSIONS=latest` takes the newest. */
const pinned = pinnedClients;

/** A Cerebras-shaped key: the fake provider ignores it, Freeway only needs one. */
const cerebrasKey = 'csk-clients0000000000000000000000000000000000000000';
/**
 * A Groq-shaped key, for Gemini CLI on a Groq key alone. Groq states a key's tokens per minute in
 * every answer (x-ratelimit-limit-tokens); this one is on the Developer plan (250,000). On the free
 * plan gpt-oss takes 8,000, less than one of Gemini CLI's requests (about 11,000 by Freeway's
 * estimate): Freeway then answers "Request too large" without a call, as Groq would with its 413.
 */
const groqKey = 'gsk_clients000000000000000000000000000000000000000000';
const GROQ_DEVELOPER_TPM = '250000';
/** A Google-shaped key (Freeway's Google pattern, AIza...), for the run with GEMINI_API_KEY alone. */
const googleKey = 'AIzaClients000000000000000000000000000000';

/** `key`: a provider key in the client's custom headers; `keyless`: only X-Freeway-Keyless: on. */
type Access = 'key' | 'keyless';

interface Client {
  readonly id: string;
  readonly pkg: string;
  readonly bin: string;
  readonly access: Access;
  /** Writes the client's configuration under `home` and returns how to run `prompt`. */
  prepare(home: string, freeway: RunningFreeway, prompt: string): Promise<{ args: string[]; env: Record<string, string>; cwd: string }>;
}

/** The header of a keyless run, as each client's custom-header setting carries it. */
const KEYLESS_HEADER = 'X-Freeway-Keyless';

/**
 * The documented per-address limits of the keyless providers the fake plays: Kilo's 200 requests an hour
 * (kilo.ai/docs/gateway/authentication) and OVHcloud's 2 a minute per model (its getting-started guide).
 */
const keylessLimits: Readonly<Record<string, { readonly limit: number; readonly windowMs: number; readonly perModel: boolean }>> = {
  kilo: { limit: 200, windowMs: 3_600_000, perModel: false },
  ovhcloud: { limit: 2, windowMs: 60_000, perModel: true },
};

/**
 * Fake keyless providers under `/<id>/`: a call with any Authorization header is a 401 (a keyless call
 * carries none), a call past the provider's per-address limit a 429 (every call comes from this machine's
 * one address), Kilo's paid models a 401; the rest is the fake provider's round trip.
 */
function keylessProviders(inner: (req: SeenRequest, res: ServerResponse) => void) {
  const seen = new Map<string, number[]>();
  return (req: SeenRequest, res: ServerResponse): void => {
    const [, provider = '', ...rest] = req.path.split('/');
    const limits = keylessLimits[provider];
    const refuse = (status: number, message: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, code: status } }));
    };
    if (!limits) return refuse(404, `no keyless provider at /${provider}`);
    if (req.headers.authorization !== undefined) return refuse(401, 'a keyless call carries no Authorization header');
    if (req.method === 'GET') return refuse(404, `/${rest.join('/')}`);
    const model = String(req.body?.model ?? '');
    if (provider === 'kilo' && !model.endsWith(':free')) return refuse(401, 'Unauthenticated access is for free models only');
    const bucket = limits.perModel ? `${provider}|${model}` : provider;
    const now = Date.now();
    const recent = (seen.get(bucket) ?? []).filter((at) => at > now - limits.windowMs);
    if (recent.length >= limits.limit) return refuse(429, 'Too many requests from this address');
    recent.push(now);
    seen.set(bucket, recent);
    inner(req, res);
  };
}

/*
 * The shell tools the clients offer and how each takes a command (read from
 * what they sent: Codex 0.169 `exec_command` {cmd}, older Codex `shell`
 * {command: [..]} and `shell_command` {command}; Claude Code `Bash` {command};
 * opencode `bash` {command, description}; Gemini CLI 0.61 `run_shell_command`
 * {command, description}, offered with --yolo).
 */
const shellTools: ReadonlyArray<readonly [name: string, args: (command: string) => Record<string, unknown>]> = [
  ['exec_command', (command) => ({ cmd: command })],
  ['shell_command', (command) => ({ command })],
  ['shell', (command) => ({ command: ['bash', '-lc', command] })],
  ['Bash', (command) => ({ command, description: 'Print the test nonce' })],
  ['bash', (command) => ({ command, description: 'Print the test nonce' })],
  ['run_shell_command', (command) => ({ command, description: 'Print the test nonce' })],
];

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (part as { text?: string }).text ?? '').join('') : '';

/**
 * A JSON value a schema (JSON Schema, or Gemini's with upper-case types) accepts: Gemini CLI
 * asks for JSON to pick its model (a complexity score) and retries an answer that is not.
 */
function sampleOf(schema: unknown): unknown {
  const node = (schema ?? {}) as { type?: unknown; properties?: Record<string, unknown>; enum?: unknown[] };
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  switch (String(Array.isArray(node.type) ? node.type[0] : (node.type ?? 'object')).toLowerCase()) {
    case 'object':
      return Object.fromEntries(Object.entries(node.properties ?? {}).map(([name, inner]) => [name, sampleOf(inner)]));
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return 10;
    case 'boolean':
      return false;
    default:
      return 'A simple request.';
  }
}

interface GeminiPart {
  text?: string;
  functionCall?: unknown;
  functionResponse?: unknown;
}

/** The fake Google: Gemini's streamGenerateContent, with the same round trip as the OpenAI-compatible side. */
function fakeGoogle(nonce: string, req: SeenRequest, res: ServerResponse): void {
  const body = req.body ?? {};
  const contents = (body.contents ?? []) as Array<{ role?: string; parts: GeminiPart[] }>;
  const config = (body.generationConfig ?? {}) as { responseMimeType?: string; responseSchema?: unknown; responseJsonSchema?: unknown };
  const tools = ((body.tools ?? []) as Array<{ functionDeclarations?: Array<{ name: string }> }>).flatMap((tool) => tool.functionDeclarations ?? []).map((fn) => fn.name);
  const parts = contents.flatMap((content) => content.parts);
  const asked = parts.some((part) => part.text?.includes(nonce));
  const echoed = parts.some((part) => part.functionResponse !== undefined && JSON.stringify(part.functionResponse).includes(`nonce-${nonce}`));
  const shell = shellTools.find(([name]) => tools.includes(name));
  let reply: GeminiPart[];
  if (config.responseMimeType === 'application/json') reply = [{ text: JSON.stringify(sampleOf(config.responseJsonSchema ?? config.responseSchema)) }];
  else if (asked && echoed) reply = [{ text: `ROUND TRIP OK ${nonce}` }];
  else if (asked && shell) reply = [{ functionCall: { name: shell[0], args: shell[1](`echo nonce-${nonce}`) } }];
  else reply = [{ text: 'Hello from the fake provider.' }];
  const chunk = { candidates: [{ content: { role: 'model', parts: reply }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 } };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
}

/** The fake provider: a shell call while the nonce has not come back from a tool, then the answer. */
function fakeProvider(nonce: string) {
  let calls = 0;
  return (req: SeenRequest, res: ServerResponse): void => {
    if (req.path.includes(':streamGenerateContent') || req.path.includes(':generateContent')) return fakeGoogle(nonce, req, res);
    if (String(req.headers.authorization).includes(groqKey)) res.setHeader('x-ratelimit-limit-tokens', GROQ_DEVELOPER_TPM);
    const body = req.body ?? {};
    const messages = (body.messages ?? []) as ChatMessage[];
    const tools = ((body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    const asked = messages.some((message) => message.role === 'user' && textOf(message.content).includes(nonce));
    const echoed = messages.some((message) => message.role === 'tool' && textOf(message.content).includes(`nonce-${nonce}`));
    const shell = shellTools.find(([name]) => tools.includes(name));
    let reply: Record<string, unknown>[];
    const format = body.response_format as { json_schema?: { schema?: unknown } } | undefined;
    if (format) reply = [{ choices: [{ index: 0, delta: { role: 'assistant', content: JSON.stringify(sampleOf(format.json_schema?.schema)) }, finish_reason: null }] }];
    else if (asked && echoed) reply = [{ choices: [{ index: 0, delta: { role: 'assistant', content: `ROUND TRIP OK ${nonce}` }, finish_reason: null }] }];
    else if (asked && shell) {
      const [name, args] = shell;
      calls += 1;
      const call = { index: 0, id: `call_${nonce}_${calls}`, type: 'function', function: { name, arguments: JSON.stringify(args(`echo nonce-${nonce}`)) } };
      reply = [{ choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [call] }, finish_reason: null }] }];
      openAISSE(res, [...reply, { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage }]);
      return;
    } else reply = [{ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello from the fake provider.' }, finish_reason: null }] }];
    if (body.stream !== true) {
      const content = (reply[0] as { choices: Array<{ delta: { content: string } }> }).choices[0]?.delta.content;
      const text = JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion', created: 1, model: String(body.model), choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
      return;
    }
    openAISSE(res, [...reply, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }]);
  };
}

/** The folder a client runs in: empty, and not a git repository. */
async function workDir(home: string): Promise<string> {
  const cwd = join(home, 'work');
  await mkdir(cwd);
  return cwd;
}

/** Codex as docs/clients.md sets it up: config.toml with Freeway's address; the key from the environment, or the keyless header as a literal. */
function codex(access: Access): Client {
  return {
    id: access === 'key' ? 'codex' : 'codex-keyless',
    pkg: '@openai/codex',
    bin: 'codex',
    access,
    async prepare(home, freeway, prompt) {
      const headers = access === 'key' ? 'env_http_headers = { "X-Cerebras-Key" = "CEREBRAS_API_KEY" }' : `http_headers = { "${KEYLESS_HEADER}" = "on" }`;
      await writeFile(
        join(home, 'config.toml'),
        `model = "free:tool-use"
model_provider = "freeway"

[model_providers.freeway]
name = "Freeway"
base_url = "${freeway.url}/v1"
wire_api = "responses"
${headers}
`,
      );
      const cwd = await workDir(home);
      return { args: ['exec', '--skip-git-repo-check', prompt], env: { CODEX_HOME: home, ...(access === 'key' ? { CEREBRAS_API_KEY: cerebrasKey } : {}) }, cwd };
    },
  };
}

function claude(access: Access): Client {
  return {
    id: access === 'key' ? 'claude' : 'claude-keyless',
    pkg: '@anthropic-ai/claude-code',
    bin: 'claude',
    access,
    async prepare(home, freeway, prompt) {
      const cwd = await workDir(home);
      return {
        args: ['-p', prompt, '--allowedTools', 'Bash(echo:*)'],
        env: {
          HOME: home,
          ANTHROPIC_BASE_URL: freeway.url,
          ANTHROPIC_AUTH_TOKEN: 'unused',
          ANTHROPIC_CUSTOM_HEADERS: access === 'key' ? `X-Cerebras-Key: ${cerebrasKey}` : `${KEYLESS_HEADER}: on`,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        cwd,
      };
    },
  };
}

function opencode(access: Access): Client {
  return {
    id: access === 'key' ? 'opencode' : 'opencode-keyless',
    pkg: 'opencode-ai',
    bin: 'opencode',
    access,
    async prepare(home, freeway, prompt) {
      const cwd = await workDir(home);
      const config = {
        $schema: 'https://opencode.ai/config.json',
        provider: {
          freeway: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Freeway',
            options: { baseURL: `${freeway.url}/v1`, apiKey: 'unused', headers: access === 'key' ? { 'X-Cerebras-Key': '{env:CEREBRAS_API_KEY}' } : { [KEYLESS_HEADER]: 'on' } },
            models: { 'free:tool-use': { name: 'Freeway free:tool-use' } },
          },
        },
        model: 'freeway/free:tool-use',
        // `opencode run` asks before a bash command; there is nobody to answer here.
        permission: { bash: 'allow' },
      };
      await writeFile(join(cwd, 'opencode.json'), JSON.stringify(config, null, 2));
      const keys: Record<string, string> = access === 'key' ? { CEREBRAS_API_KEY: cerebrasKey } : {};
      return { args: ['run', prompt], env: { ...keys, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'), XDG_CACHE_HOME: join(home, '.cache') }, cwd };
    },
  };
}

const gemini = (id: string, access: Access, keys: Record<string, string>): Client => ({
  id,
  pkg: '@google/gemini-cli',
  bin: 'gemini',
  access,
  prepare: (home, freeway, prompt) => prepareGemini(home, freeway, prompt, keys),
});

const clients: readonly Client[] = [
  codex('key'),
  claude('key'),
  opencode('key'),
  gemini('gemini', 'key', { GEMINI_API_KEY: 'freeway', GEMINI_CLI_CUSTOM_HEADERS: `X-Groq-Key: ${groqKey}` }),
  gemini('gemini-google', 'key', { GEMINI_API_KEY: googleKey }),
  codex('keyless'),
  claude('keyless'),
  opencode('keyless'),
  gemini('gemini-keyless', 'keyless', { GEMINI_API_KEY: 'freeway', GEMINI_CLI_CUSTOM_HEADERS: `${KEYLESS_HEADER}: on` }),
];

/**
 * Gemini CLI as docs/clients.md sets it up: the API-key auth type chosen in settings (with
 * GOOGLE_GEMINI_BASE_URL alone, 0.61 stops with "Invalid auth method selected.",
 * google-gemini/gemini-cli#27550), usage statistics, telemetry and updates off, the folder
 * trusted, and --yolo so that its shell tool runs without asking. Its default model (`auto`)
 * is kept: GEMINI_MODEL_MAP's defaults serve the names it asks for.
 */
async function prepareGemini(home: string, freeway: RunningFreeway, prompt: string, keys: Record<string, string>): Promise<{ args: string[]; env: Record<string, string>; cwd: string }> {
  await mkdir(join(home, '.gemini'));
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  await writeFile(join(home, '.gemini/settings.json'), JSON.stringify(settings, null, 2));
  const cwd = await workDir(home);
  return { args: ['--skip-trust', '--yolo', '-p', prompt], env: { HOME: home, GOOGLE_GEMINI_BASE_URL: freeway.url, ...keys }, cwd };
}

async function ensureInstalled(chosen: readonly Client[]): Promise<void> {
  const missing = chosen.filter((client) => !existsSync(join(clientsDir, 'node_modules/.bin', client.bin)));
  if (missing.length === 0) return;
  const latest = process.env.CLIENT_VERSIONS === 'latest';
  const specs = [...new Set(missing.map((client) => (latest ? client.pkg : `${client.pkg}@${pinned[client.pkg]}`)))];
  process.stdout.write(`installing ${specs.join(' ')} into ${clientsDir}\n`);
  await mkdir(clientsDir, { recursive: true });
  await run('npm', ['install', '--prefix', clientsDir, '--no-audit', '--no-fund', '--no-save', ...specs], { maxBuffer: 16 * 1024 * 1024 });
}

/** The installed package's version (its package.json; some CLIs take 20 s to answer --version without a network). */
async function versionOf(client: Client): Promise<string> {
  try {
    const manifest = JSON.parse(await readFile(join(clientsDir, 'node_modules', client.pkg, 'package.json'), 'utf8')) as { version?: string };
    return `${client.pkg}@${manifest.version ?? '?'}`;
  } catch {
    return `${client.pkg}@?`;
  }
}

/** Runs a client to its end or to the timeout; its output, its exit code (null when killed). */
function runClient(bin: string, args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd, env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      if (output.length < 1_000_000) output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const chosen = wanted.length === 0 ? clients : clients.filter((client) => wanted.includes(client.id));
  if (chosen.length === 0) throw new Error(`unknown client: ${wanted.join(' ')} (${clients.map((client) => client.id).join(', ')})`);
  await ensureInstalled(chosen);
  const results: string[] = [];
  let failed = 0;
  for (const client of chosen) {
    const nonce = randomBytes(6).toString('hex');
    const keyless = client.access === 'keyless';
    const upstream = await startUpstream(keyless ? keylessProviders(fakeProvider(nonce)) : fakeProvider(nonce));
    // A keyless run has Freeway's defaults (ANONYMOUS=local, ANONYMOUS_PER_MINUTE), as a new user would.
    const bases = keyless
      ? Object.fromEntries(Object.keys(keylessLimits).map((id) => [`${id.toUpperCase()}_BASE_URL`, `${upstream.url}/${id}`]))
      : { CEREBRAS_BASE_URL: upstream.url, GROQ_BASE_URL: upstream.url, GOOGLE_BASE_URL: upstream.url };
    const freeway = await startFreeway({ env: { ...bases, ROUTING: 'quality', STICKY: 'on' } });
    const home = await mkdtemp(join(tmpdir(), `freeway-${client.id}-`));
    try {
      const prompt = `Run the shell command \`echo nonce-${nonce}\` and tell me what it printed. (${nonce})`;
      const { args, env, cwd } = await client.prepare(home, freeway, prompt);
      const started = Date.now();
      const { code, output } = await runClient(join(clientsDir, 'node_modules/.bin', client.bin), args, env, cwd);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const passed = code === 0 && output.includes(`ROUND TRIP OK ${nonce}`);
      const dropped = freeway.logs.filter((line) => line.includes('"note"')).length;
      const line = `${client.id} ${await versionOf(client)}: ${passed ? 'PASS' : 'FAIL'} in ${seconds} s (exit ${code}, ${upstream.requests.length} provider calls${dropped ? `, ${dropped} with hosted tools dropped` : ''})`;
      results.push(line);
      process.stdout.write(`${line}\n`);
      if (!passed) {
        failed += 1;
        process.stdout.write(`--- ${client.id} output (last 3000 characters) ---\n${output.slice(-3000)}\n--- Freeway log (last 10 lines) ---\n${freeway.logs.slice(-10).join('\n')}\n`);
      }
    } finally {
      await freeway.close();
      await upstream.close();
      await rm(home, { recursive: true, force: true });
    }
  }
  process.stdout.write(`\n${results.join('\n')}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
