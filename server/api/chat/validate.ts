import { compileBody, fail } from '../validation.ts';
import { chatSchema } from './schema.ts';
import type { ChatRequest } from './types.ts';

const checkBody = compileBody<ChatRequest>(chatSchema);

/** Checks a parsed body against the schema, then what it cannot say; throws a 400 naming the first bad field. */
export function parseChatRequest(input: unknown): ChatRequest {
  const request = checkBody(input);
  if (request.n != null && request.n > 1) fail('n', 'only n = 1 is supported');
  if (request.functions !== undefined && request.tools !== undefined) fail('functions', 'send tools or the legacy functions, not both');
  return request;
}
