import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export async function postResponses(baseURL: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseURL}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const repo = new URL('../..', import.meta.url).pathname;
const run = promisify(execFile);

/**
 * The wire shapes as the openai SDK's types describe them, with the departures
 * Freeway makes on purpose: `output_text` is a convenience the SDK adds, not a
 * field of the wire; `store` is on the wire (always false here) though the
 * SDK's type leaves it out; usage details carry only what the upstream reported;
 * `response.function_call_arguments.done` carries `name`, as OpenAI's published
 * schema has it (test/api/codex.test.ts checks that against the schema itself).
 */
const prelude = `
import type { Response, ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
type WireUsage = Omit<ResponseUsage, 'input_tokens_details' | 'output_tokens_details'> & {
  input_tokens_details?: Partial<ResponseUsage.InputTokensDetails>;
  output_tokens_details?: ResponseUsage.OutputTokensDetails;
};
type WireResponse = Omit<Response, 'output_text' | 'usage'> & { store: false; usage?: WireUsage };
// OpenAI's published schema requires \`name\` on the arguments' done event, which this SDK's type lacks.
type Wire<E> = E extends { response: Response }
  ? Omit<E, 'response'> & { response: WireResponse }
  : E extends { type: 'response.function_call_arguments.done' }
    ? E & { name: string }
    : E;
export type WireEvent = Wire<ResponseStreamEvent>;
`;

/**
 * Type-checks streamed events and Response objects as literals against the
 * official `openai` SDK's types (ResponseStreamEvent, Response), with
 * TypeScript's excess-property checks: a missing, misspelt, extra or wrongly
 * typed field fails. Returns tsc's complaints, '' when there are none.
 */
export async function checkAgainstSDKTypes(events: readonly unknown[], responses: readonly unknown[] = []): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'freeway-responses-'));
  try {
    await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'));
    const source = `${prelude}
export const events: WireEvent[] = ${JSON.stringify(events, null, 1)};
export const responses: WireResponse[] = ${JSON.stringify(responses, null, 1)};
`;
    await writeFile(join(dir, 'check.ts'), source);
    await writeFile(join(dir, 'package.json'), '{"type": "module"}');
    try {
      await run(join(repo, 'node_modules/.bin/tsc'), ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--target', 'es2022', '--types', '', 'check.ts'], { cwd: dir });
      return '';
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      return `${stdout ?? ''}${stderr ?? ''}` || String(error);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
