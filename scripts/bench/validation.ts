/**
 * CPU per body of each client API's validation, in process: the benchmark's
 * chat body, a Claude Code-like Messages body (a long tool-heavy session), a
 * Codex-like Responses body and a Gemini CLI-like body, each checked the way its
 * route checks it. `--root` measures another checkout's validators (the same
 * exported functions) for a before and after.
 *
 *   node scripts/bench/validation.ts
 *   node scripts/bench/validation.ts --root /path/to/other/checkout
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { body as benchBody } from './harness.ts';

const rootArg = process.argv.indexOf('--root');
const root = resolve(rootArg === -1 ? new URL('../..', import.meta.url).pathname : (process.argv[rootArg + 1] as string));
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(resolve(root, path)).href)) as T;

const { parseChatRequest } = await load<{ parseChatRequest(body: unknown): unknown }>('server/api/chat/validate.ts');
const { parseMessagesRequest } = await load<{ parseMessagesRequest(body: unknown): unknown }>('server/api/messages/validate.ts');
const { parseResponsesRequest } = await load<{ parseResponsesRequest(body: unknown): unknown }>('server/api/responses/validate.ts');
const { parseGeminiRequest } = await load<{ parseGeminiRequest(body: unknown, target: { model: string; stream: boolean; sse: boolean }): unknown }>('server/api/gemini/validate.ts');

const schema = (fields: number): Record<string, unknown> => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: fields }, (_, i) => [`field_${i}`, { type: i % 2 ? 'string' : 'integer', description: `The ${i}th field of the call, described at some length as real tools do.` }])),
  required: ['field_0'],
});
const prose = (words: number): string => Array.from({ length: words }, (_, i) => `word${i % 97}`).join(' ');

/** Claude Code's shape: system blocks, ~20 tools, and 80 turns of text, tool calls and their results. */
const messagesBody = {
  model: 'claude-sonnet-4-6',
  max_tokens: 32000,
  stream: true,
  system: [{ type: 'text', text: prose(400), cache_control: { type: 'ephemeral' } }, { type: 'text', text: prose(200) }],
  tools: Array.from({ length: 20 }, (_, i) => ({ name: `Tool_${i}`, description: prose(120), input_schema: schema(6) })),
  metadata: { user_id: 'user_0123456789abcdef' },
  thinking: { type: 'enabled', budget_tokens: 4000 },
  messages: Array.from({ length: 80 }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', content: i === 0 ? [{ type: 'text', text: prose(50) }] : [{ type: 'tool_result', tool_use_id: `toolu_${i - 1}`, content: [{ type: 'text', text: prose(150) }] }] }
      : {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: prose(40), signature: 'sig' },
            { type: 'text', text: prose(30) },
            { type: 'tool_use', id: `toolu_${i}`, name: `Tool_${i % 20}`, input: { field_0: i, field_1: 'src/index.ts', field_2: 3 } },
          ],
        },
  ),
};

/** Codex's shape: instructions, function and namespace tools, 60 items of messages, calls and outputs. */
const responsesBody = {
  model: 'free:tool-use',
  instructions: prose(300),
  stream: true,
  tools: [
    ...Array.from({ length: 10 }, (_, i) => ({ type: 'function', name: `fn_${i}`, description: prose(60), strict: false, parameters: schema(4) })),
    { type: 'namespace', name: 'mcp__files__', description: 'Files', tools: Array.from({ length: 5 }, (_, i) => ({ type: 'function', name: `f${i}`, description: prose(20), parameters: schema(2) })) },
    { type: 'web_search' },
  ],
  input: Array.from({ length: 60 }, (_, i) =>
    i % 3 === 0
      ? { type: 'message', role: 'user', content: [{ type: 'input_text', text: prose(60) }] }
      : i % 3 === 1
        ? { type: 'function_call', call_id: `call_${i}`, name: `fn_${i % 10}`, arguments: '{"field_0":1}' }
        : { type: 'function_call_output', call_id: `call_${i - 1}`, output: prose(100) },
  ),
};

/** Gemini CLI's shape: system instruction, 15 declarations, 40 turns of text, calls and responses. */
const geminiBody = {
  systemInstruction: { role: 'user', parts: [{ text: prose(400) }] },
  tools: [{ functionDeclarations: Array.from({ length: 15 }, (_, i) => ({ name: `tool_${i}`, description: prose(80), parametersJsonSchema: schema(5) })) }],
  generationConfig: { temperature: 0.7, topP: 0.95, maxOutputTokens: 8192, thinkingConfig: { includeThoughts: true, thinkingBudget: -1 } },
  contents: Array.from({ length: 40 }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', parts: i === 0 ? [{ text: prose(50) }] : [{ functionResponse: { id: `c${i - 1}`, name: `tool_${(i - 1) % 15}`, response: { output: prose(100) } } }] }
      : { role: 'model', parts: [{ text: prose(20) }, { functionCall: { id: `c${i}`, name: `tool_${i % 15}`, args: { field_0: i } } }] },
  ),
};

const benchParsed: unknown = JSON.parse(benchBody(false));

const cases: ReadonlyArray<readonly [string, () => unknown]> = [
  ['chat (the bench body)', () => parseChatRequest(benchParsed)],
  ['messages (Claude Code-like, 80 turns, 20 tools)', () => parseMessagesRequest(messagesBody)],
  ['responses (Codex-like, 60 items, 16 tools)', () => parseResponsesRequest(responsesBody)],
  ['gemini (Gemini CLI-like, 40 turns, 15 tools)', () => parseGeminiRequest(geminiBody, { model: 'gemini-2.5-pro', stream: true, sse: true })],
];

/** Microseconds per call: the median of `runs` runs of ~300 ms each. */
function measure(run: () => unknown, runs = 7): number {
  for (let i = 0; i < 2000; i++) run();
  const perRun: number[] = [];
  for (let r = 0; r < runs; r++) {
    let calls = 0;
    const started = performance.now();
    while (performance.now() - started < 300) {
      for (let i = 0; i < 100; i++) run();
      calls += 100;
    }
    perRun.push(((performance.now() - started) * 1000) / calls);
  }
  return perRun.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
}

console.log(`validation of ${root}`);
for (const [name, run] of cases) {
  const micros = measure(run);
  console.log(`  ${name.padEnd(50)} ${micros.toFixed(2).padStart(8)} µs`);
}
