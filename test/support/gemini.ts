/**
 * What the Gemini tests share: a caller of Gemini's routes, the checks of Google's error
 * envelope and of the framing Google's SDKs need, and a fake Gemini upstream's answers
 * (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent, read
 * 2026-11-27: `data: <GenerateContentResponse>` events, the finish on the last).
 */
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import type { RunningFreeway } from './freeway.ts';
import { parseSse } from './sse.ts';
import { json, type SeenRequest } from './upstream.ts';

/** POSTs a JSON body to one of Freeway's paths. */
export function postJson(freeway: RunningFreeway, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** A user turn of one text part. */
export const userText = (text: string) => ({ role: 'user', parts: [{ text }] });

/** Asserts Google's error envelope: exactly `{"error": {"code", "message", "status"}}` (and `details` when asked), code the HTTP status. */
export async function expectGoogleError(response: Response, status: number, statusName: string, message?: string | RegExp, details?: unknown): Promise<string> {
  const text = await response.text();
  expect(response.status, text).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  const body = JSON.parse(text) as { error: { code: number; message: string; status: string; details?: unknown } };
  expect(Object.keys(body)).to.deep.equal(['error']);
  expect(Object.keys(body.error).sort()).to.deep.equal(details === undefined ? ['code', 'message', 'status'] : ['code', 'details', 'message', 'status']);
  expect(body.error.code).to.equal(status);
  expect(body.error.status).to.equal(statusName);
  if (typeof message === 'string') expect(body.error.message).to.equal(message);
  else if (message) expect(body.error.message).to.match(message);
  if (details !== undefined) expect(body.error.details).to.deep.equal(details);
  return body.error.message;
}

/**
 * The events of a Gemini stream, checking the framing Google's SDKs need (Gemini CLI's bundled
 * SDK reads `^data: (.*)\n\n`): every event one `data: ` line of JSON and nothing else, no
 * `event:`, no comments, no `[DONE]`, and no raw U+2028, U+2029 or U+0085.
 */
export function geminiEvents(text: string): any[] {
  expect(text).to.not.match(/[\u2028\u2029\u0085]/);
  expect(text.endsWith('\n\n')).to.equal(true);
  const blocks = text.slice(0, -2).split('\n\n');
  for (const block of blocks) expect(block, block).to.match(/^data: [^\n]+$/);
  const events = parseSse(text);
  expect(events).to.have.length(blocks.length);
  return events.map((event) => JSON.parse(event.data));
}

/** The text of a stream's (or answer's) candidates, thoughts left out. */
export function textOf(responses: readonly any[]): string {
  return responses
    .flatMap((response) => response.candidates?.[0]?.content?.parts ?? [])
    .filter((part: { text?: string; thought?: boolean }) => typeof part.text === 'string' && part.thought !== true)
    .map((part: { text: string }) => part.text)
    .join('');
}

/** A fake Gemini upstream's stream: each chunk as a `data:` event, as Google sends them. */
export function geminiUpstream(res: ServerResponse, chunks: readonly unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  res.end();
}

export const geminiUsage = { promptTokenCount: 11, candidatesTokenCount: 4, totalTokenCount: 15 };

/** A Gemini candidate chunk with `parts`; the last one carries `finishReason` and the usage. */
export const geminiChunk = (parts: readonly unknown[], last = false) => ({
  candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
  ...(last ? { usageMetadata: geminiUsage } : {}),
  modelVersion: 'gemini-3.8-flash',
});

/** A Gemini embeddings answer for the path's method: a made-up vector per input. */
export function geminiEmbeddings(res: ServerResponse, req: SeenRequest): void {
  const vector = (text: string): number[] => [text.length, text.charCodeAt(0), 5];
  if (req.path.includes(':batchEmbedContents')) {
    const requests = req.body?.requests as Array<{ content: { parts: Array<{ text: string }> } }>;
    json(res, 200, { embeddings: requests.map((request) => ({ values: vector(request.content.parts[0]?.text ?? '') })) });
    return;
  }
  const content = req.body?.content as { parts: Array<{ text: string }> };
  json(res, 200, { embedding: { values: vector(content.parts[0]?.text ?? '') } });
}

/** The paths a provider reached in a shared fake upstream: Gemini's by `:method`, the others' by path. */
export const isGeminiPath = (req: SeenRequest): boolean => /:(stream)?[gG]enerateContent|:embedContent|:batchEmbedContents/.test(req.path);
