// @ts-check
// The client APIs the playground speaks: how each asks for a streamed answer and how each stream
// reads. Each client API is one entry of CLIENT_APIS.

/**
 * @typedef {{ role: 'user' | 'assistant', content: string }} Turn
 * @typedef {{ model: string, system: string, temperature: number | undefined, maxTokens: number | undefined }} Settings
 * @typedef {{ input: number, output: number, total: number }} TokenUsage
 * @typedef {{ text?: string, usage?: TokenUsage, error?: string }} StreamStep
 * @typedef {{
 *   id: string, label: string, path: (settings: Settings) => string,
 *   body: (turns: Turn[], settings: Settings) => Record<string, unknown>,
 *   read: (event: string, data: any) => StreamStep
 * }} ClientApi
 */

/** What a budget-less Messages request asks for: the API requires `max_tokens`. */
const MESSAGES_DEFAULT_MAX_TOKENS = 1024;

/** @param {number | undefined} input @param {number | undefined} output @returns {TokenUsage} */
function tokens(input, output) {
  const inTokens = input ?? 0;
  const outTokens = output ?? 0;
  return { input: inTokens, output: outTokens, total: inTokens + outTokens };
}

/** @param {Record<string, unknown>} body @param {Record<string, number | undefined>} optional */
function withOptional(body, optional) {
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) body[name] = value;
  return body;
}

/** @type {ClientApi} */
const chatCompletions = {
  id: 'chat',
  label: 'Chat completions (OpenAI)',
  path: () => '/v1/chat/completions',
  body: (turns, settings) =>
    withOptional(
      {
        model: settings.model,
        messages: [...(settings.system ? [{ role: 'system', content: settings.system }] : []), ...turns],
        stream: true,
        stream_options: { include_usage: true },
      },
      { temperature: settings.temperature, max_tokens: settings.maxTokens },
    ),
  read(_event, data) {
    if (data?.error) return { error: data.error.message ?? 'The stream failed.' };
    /** @type {StreamStep} */
    const step = {};
    const text = data?.choices?.[0]?.delta?.content;
    if (typeof text === 'string' && text !== '') step.text = text;
    if (data?.usage) step.usage = { input: data.usage.prompt_tokens ?? 0, output: data.usage.completion_tokens ?? 0, total: data.usage.total_tokens ?? 0 };
    return step;
  },
};

/** @type {ClientApi} */
const responses = {
  id: 'responses',
  label: 'Responses (OpenAI)',
  path: () => '/v1/responses',
  body: (turns, settings) =>
    withOptional(
      { model: settings.model, ...(settings.system ? { instructions: settings.system } : {}), input: turns, stream: true },
      { temperature: settings.temperature, max_output_tokens: settings.maxTokens },
    ),
  read(event, data) {
    const type = data?.type ?? event;
    if (type === 'response.output_text.delta') return { text: data.delta };
    if (type === 'response.completed' || type === 'response.incomplete') {
      const usage = data.response?.usage;
      return usage ? { usage: { ...tokens(usage.input_tokens, usage.output_tokens), total: usage.total_tokens ?? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) } } : {};
    }
    if (type === 'error') return { error: data.message ?? 'The stream failed.' };
    if (type === 'response.failed') return { error: data.response?.error?.message ?? 'The response failed.' };
    return {};
  },
};

/** @type {ClientApi} */
const messages = {
  id: 'messages',
  label: 'Messages (Anthropic)',
  path: () => '/v1/messages',
  body: (turns, settings) =>
    withOptional(
      { model: settings.model, max_tokens: settings.maxTokens ?? MESSAGES_DEFAULT_MAX_TOKENS, ...(settings.system ? { system: settings.system } : {}), messages: turns, stream: true },
      { temperature: settings.temperature },
    ),
  read(event, data) {
    const type = data?.type ?? event;
    if (type === 'content_block_delta' && data.delta?.type === 'text_delta') return { text: data.delta.text };
    // The counts come in message_delta; message_start carries zeros.
    if (type === 'message_delta' && data.usage) return { usage: tokens(data.usage.input_tokens, data.usage.output_tokens) };
    if (type === 'error') return { error: data.error?.message ?? 'The stream failed.' };
    return {};
  },
};

/** @type {ClientApi} */
const gemini = {
  id: 'gemini',
  label: 'Gemini (Google)',
  // The model is part of Gemini's path; alt=sse asks for server-sent events.
  path: (settings) => `/v1beta/models/${encodeURIComponent(settings.model)}:streamGenerateContent?alt=sse`,
  body: (turns, settings) => {
    /** @type {Record<string, number>} */
    const generationConfig = {};
    if (settings.temperature !== undefined) generationConfig.temperature = settings.temperature;
    if (settings.maxTokens !== undefined) generationConfig.maxOutputTokens = settings.maxTokens;
    return {
      ...(settings.system ? { systemInstruction: { parts: [{ text: settings.system }] } } : {}),
      contents: turns.map((turn) => ({ role: turn.role === 'assistant' ? 'model' : 'user', parts: [{ text: turn.content }] })),
      ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
    };
  },
  read(_event, data) {
    if (data?.error) return { error: data.error.message ?? 'The stream failed.' };
    /** @type {StreamStep} */
    const step = {};
    /** @type {Array<{ text?: unknown, thought?: unknown }>} */
    const parts = data?.candidates?.[0]?.content?.parts ?? [];
    const text = parts.map((part) => (typeof part.text === 'string' && part.thought !== true ? part.text : '')).join('');
    if (text !== '') step.text = text;
    const usage = data?.usageMetadata;
    if (usage) step.usage = { ...tokens(usage.promptTokenCount, usage.candidatesTokenCount), total: usage.totalTokenCount ?? (usage.promptTokenCount ?? 0) + (usage.candidatesTokenCount ?? 0) };
    return step;
  },
};

export const CLIENT_APIS = [chatCompletions, responses, messages, gemini];

/**
 * Reads a server-sent event stream, calling `onEvent` with each event's name and parsed data
 * (`[DONE]` and data that is not JSON are skipped).
 * @param {ReadableStream<Uint8Array>} body @param {(event: string, data: any) => void} onEvent
 */
export async function readEvents(body, onEvent) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // A \r\n split between two reads is joined first, then normalised.
    buffer = (buffer + decoder.decode(value, { stream: true })).replaceAll('\r\n', '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (data === '' || data === '[DONE]') continue;
      let parsed;
      try {
        parsed = JSON.parse(data);
      } catch {
        continue;
      }
      onEvent(event, parsed);
    }
  }
}
