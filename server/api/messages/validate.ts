import { compileBody, fail } from '../validation.ts';
import { countTokensSchema, messagesSchema } from './schema.ts';
import type { MessagesRequest } from './types.ts';

const checkMessages = compileBody<MessagesRequest>(messagesSchema);
const checkCounting = compileBody<MessagesRequest>(countTokensSchema);

/** What the schema cannot say: a tool of Anthropic's own is refused, and a tool choice names a tool of the request. */
function checkTools(request: MessagesRequest): void {
  const tools = (request.tools ?? []) as Array<MessagesRequest['tools'] extends Array<infer T> | undefined ? T & { type?: unknown } : never>;
  for (const [index, tool] of tools.entries()) {
    const type = tool.type;
    if (type === undefined || type === null || type === 'custom') continue;
    const name = typeof tool.name === 'string' ? tool.name : String(type);
    fail(`tools.${index}`, `${name} (${String(type)}) is a server tool, which Freeway does not run; only custom tools (name, description, input_schema) are supported`);
  }
  const choice = request.tool_choice;
  if (choice?.type === 'tool' && !tools.some((tool) => tool.name === choice.name)) fail('tool_choice.name', `names no tool of the request: ${choice.name}`);
}

/**
 * A Messages API body -> the request Freeway reads, or a 400 naming the first
 * bad field. `count_tokens` bodies have no `max_tokens`.
 */
export function parseMessagesRequest(body: unknown, counting = false): MessagesRequest {
  const request = counting ? checkCounting(body) : checkMessages(body);
  checkTools(request);
  return request;
}
