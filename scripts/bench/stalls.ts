/**
 * What a provider that stalls costs the caller, through Freeway and through
 * Portkey's gateway (the dev dependency `npm run bench` compares with), on two
 * fake providers on 127.0.0.1. In each case the first provider asked
 * misbehaves once and the other answers at once, so the table shows how long
 * the caller waited and who answered.
 *
 * Freeway streams every upstream call, also for callers that do not stream, and
 * bounds each attempt by FIRST_TOKEN_TIMEOUT_MS and STREAM_IDLE_TIMEOUT_MS (one
 * unit each here). Portkey calls a non-streaming caller's provider without
 * streaming; its only bound is request_timeout, the whole call's duration: it
 * runs with none (its default), with one unit (Freeway's bound on a silent
 * attempt) and with five units (longer than the long answer).
 *
 *   npm run build && node scripts/bench/stalls.ts
 *   STALLS_UNIT_MS (1000): the unit; the long answer takes 4, a caller gives up after 10
 *
 * Everything talks to 127.0.0.1 and stops itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { json, openAIText, startUpstream, type SeenRequest } from '../../test/support/upstream.ts';
import { freePort, root, waitForHttp } from './harness.ts';

const unitMs = Number(process.env.STALLS_UNIT_MS ?? 1000);
const longAnswerMs = 4 * unitMs;
const giveUpMs = 10 * unitMs;
const longChunks = 40;
const otherText = 'answered by the other provider';

/** How the first provider asked misbehaves; `stream` says whether the call asked for a stream. */
type Fault = (res: ServerResponse, stream: boolean, req: SeenRequest) => void;

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const cases: ReadonlyArray<{ name: string; fault: Fault }> = [
  {
    // A stream's headers come at once and then nothing; a non-streaming call gets nothing at all.
    name: 'silent before its first token',
    fault: (res, stream) => {
      if (stream) res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
    },
  },
  {
    name: 'silent after three tokens',
    fault: (res, stream) => {
      if (!stream) return;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'one ' }) + chunk({ content: 'two ' }) + chunk({ content: 'three ' }));
    },
  },
  {
    name: `a steady answer of ${longAnswerMs / 1000} s`,
    fault: (res, stream, req) => {
      if (!stream) {
        setTimeout(() => openAIText(res, 'long '.repeat(longChunks), req), longAnswerMs).unref();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        if (sent < longChunks) {
          res.write(chunk(sent === 0 ? { role: 'assistant', content: 'long ' } : { content: 'long ' }));
          sent += 1;
          return;
        }
        clearInterval(timer);
        res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
      }, longAnswerMs / longChunks);
    },
  },
  {
    // The connection ends cleanly mid-answer: no finish reason, no [DONE] (a JSON body cut the same way).
    name: 'cut off after three tokens',
    fault: (res, stream) => {
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      res.end(stream ? chunk({ role: 'assistant', content: 'one ' }) + chunk({ content: 'two ' }) + chunk({ content: 'three ' }) : '{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assistant","content":"one two thr');
    },
  },
];

/**
 * The two fake providers: the first chat call whose prompt is `id` gets the fault, every other call the short
 * answer. A call a gateway still makes for an earlier case (a retry after its caller gave up) carries that
 * case's prompt, so it cannot take the next case's fault.
 */
interface Providers {
  readonly urls: readonly [string, string];
  arm(id: string, fault: Fault): void;
  close(): Promise<void>;
}

async function startProviders(): Promise<Providers> {
  let armed: { id: string; fault: Fault } | undefined;
  const handle = (req: SeenRequest, res: ServerResponse): void => {
    if (!req.path.endsWith('/chat/completions')) return json(res, 404, {});
    const request = req.body as { stream?: boolean; messages?: Array<{ content?: unknown }> } | undefined;
    if (armed && request?.messages?.[0]?.content === armed.id) {
      const { fault } = armed;
      armed = undefined;
      fault(res, request.stream === true, req);
    } else openAIText(res, otherText, req);
  };
  const [first, second] = await Promise.all([startUpstream(handle), startUpstream(handle)]);
  return {
    urls: [first.url, second.url],
    arm(id, fault) {
      armed = { id, fault };
    },
    async close() {
      await Promise.all([first.close(), second.close()]);
    },
  };
}

interface Target {
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the caller saw: who answered, whether the answer was whole, how long it took. */
async function call(target: Target, stream: boolean, prompt: string): Promise<string> {
  const started = performance.now();
  const seconds = (): string => `${((performance.now() - started) / 1000).toFixed(2)} s`;
  let text = '';
  try {
    const res = await fetch(`${target.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...target.headers },
      body: JSON.stringify({ model: target.name === 'Freeway' ? 'free:auto' : 'm', messages: [{ role: 'user', content: prompt }], stream }),
      signal: AbortSignal.timeout(giveUpMs),
    });
    text = await res.text();
    if (!stream) {
      if (res.status !== 200) return `${res.status} error after ${seconds()}`;
      const content = (JSON.parse(text) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content ?? '';
      return `${describe(content)}, ${seconds()}`;
    }
    if (res.status !== 200) return `${res.status} error after ${seconds()}`;
    const events = text.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => e.slice(6));
    const content = events.filter((e) => e !== '[DONE]').map((e) => (JSON.parse(e) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content ?? '').join('');
    const error = events.some((e) => e !== '[DONE]' && 'error' in (JSON.parse(e) as object));
    const ending = error ? 'then an error event' : events.at(-1) === '[DONE]' ? 'ended with [DONE]' : 'ended without [DONE] or an error';
    return `${describe(content)}, ${ending}, ${seconds()}`;
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return `held until the caller gave up at ${giveUpMs / 1000} s`;
    return `failed (${(error as Error).message}) after ${seconds()}`;
  }
}

function describe(content: string): string {
  if (content === otherText) return 'the other provider answered';
  if (content === 'long '.repeat(longChunks)) return 'the whole long answer';
  if (content.startsWith('long ')) return `${content.length / 5} of ${longChunks} tokens of the long answer`;
  if (content === '') return 'no answer';
  return `"${content.trim()}" (cut)`;
}

/** `quiet` drops the child's standard error (Portkey logs every failed call there). */
async function startChild(script: string, env: Record<string, string>, url: string, probe: string, quiet = false): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(root, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', quiet ? 'ignore' : 'inherit'] });
  await waitForHttp(url + probe);
  return child;
}

async function main(): Promise<void> {
  const providers = await startProviders();
  const [first, second] = providers.urls;
  const freewayPort = await freePort();
  const portkeyPort = await freePort();
  const freewayUrl = `http://127.0.0.1:${freewayPort}`;
  const portkeyUrl = `http://127.0.0.1:${portkeyPort}`;
  const children = [
    await startChild('dist/server/main.js', {
      PORT: String(freewayPort),
      HOST: '127.0.0.1',
      CEREBRAS_BASE_URL: first,
      GROQ_BASE_URL: second,
      MODELS_LIVE: 'off',
      FIRST_TOKEN_TIMEOUT_MS: String(unitMs),
      STREAM_IDLE_TIMEOUT_MS: String(unitMs),
      LOG_LEVEL: 'warn',
    }, freewayUrl, '/livez'),
    await startChild('scripts/bench/portkey.ts', { PROXY_PORT: String(portkeyPort) }, portkeyUrl, '/', true),
  ];
  const portkey = (timeoutMs?: number): Target => ({
    name: timeoutMs === undefined ? 'Portkey, no request_timeout (its default)' : `Portkey, request_timeout ${timeoutMs / 1000} s`,
    url: portkeyUrl,
    headers: {
      'x-portkey-config': JSON.stringify({
        strategy: { mode: 'fallback' },
        ...(timeoutMs === undefined ? {} : { request_timeout: timeoutMs }),
        targets: [first, second].map((host) => ({ provider: 'openai', custom_host: host, api_key: 'sk-stalls' })),
      }),
    },
  });
  const targets: Target[] = [
    { name: 'Freeway', url: freewayUrl, headers: { 'x-cerebras-key': 'csk-stalls00000000000000000000000000', 'x-groq-key': 'gsk_stalls0000000000000000000000000000' } },
    portkey(),
    portkey(unitMs),
    portkey(5 * unitMs),
  ];
  let calls = 0;
  try {
    console.log(`The first provider asked misbehaves once, the other answers at once; a caller gives up after ${giveUpMs / 1000} s. Freeway: FIRST_TOKEN_TIMEOUT_MS and STREAM_IDLE_TIMEOUT_MS ${unitMs} ms.\n`);
    for (const stream of [false, true]) {
      console.log(`| the first provider, ${stream ? 'streaming' : 'non-streaming'} caller | ${targets.map((t) => t.name).join(' | ')} |`);
      console.log(`|---|${targets.map(() => '---').join('|')}|`);
      for (const { name, fault } of cases) {
        const cells: string[] = [];
        for (const target of targets) {
          const prompt = `case ${(calls += 1)}`;
          providers.arm(prompt, fault);
          cells.push(await call(target, stream, prompt));
        }
        console.log(`| ${name} | ${cells.join(' | ')} |`);
      }
      console.log('');
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
    await providers.close();
  }
}

await main();
