/** A tiny client for Freeway's HTTP API, for tests that look at raw responses. */
export interface ChatResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON for non-streaming responses. */
  json: any;
  /** Raw text (the SSE body for streams). */
  text: string;
  ms: number;
}

export async function postChat(baseURL: string, body: unknown, headers: Record<string, string> = {}): Promise<ChatResponse> {
  const started = performance.now();
  const res = await fetch(`${baseURL}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { ...(await readAnswer(res)), ms: performance.now() - started };
}

/** A response's status, headers, text and, when the text is JSON, its value. */
export async function readAnswer(res: Response): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const hello = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'Say hello' }],
  ...extra,
});

export async function getHealth(baseURL: string, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${baseURL}/health`, { headers });
  return res.json();
}
