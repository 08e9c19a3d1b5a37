import type { ErrorObject } from 'ajv';
import { assertSchemaDepth } from '../json-depth.ts';
import { fail, phrase } from '../validation.ts';
import validateChatRequest from './generated/validate-chat-request.js';
import type { ChatRequest } from './types.ts';

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.slice(1).replaceAll('/', '.');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : undefined;
  const tag = error.keyword === 'discriminator' ? (error.params as { tag: string }).tag : undefined;
  const leaf = missing ?? tag;
  if (leaf) return path ? `${path}.${leaf}` : leaf;
  return path || 'body';
}

/** What is wrong, in the words every client API uses (../validation.ts). */
function detailOf(error: ErrorObject): string {
  const limit = (error.params as { limit?: number }).limit as number;
  switch (error.keyword) {
    case 'required':
      return phrase.required;
    case 'discriminator':
      return (error.params as { error: string }).error === 'mapping'
        ? phrase.oneOf(
            (error.parentSchema?.oneOf as Array<{ properties: { role?: { const?: string; enum?: string[] }; type?: { const?: string } } }>).flatMap(
              (branch) => branch.properties.role?.enum ?? [branch.properties.role?.const ?? branch.properties.type?.const],
            ),
          )
        : 'must be a string';
    case 'enum':
      return phrase.oneOf((error.params as { allowedValues: unknown[] }).allowedValues);
    case 'const':
      return phrase.constant((error.params as { allowedValue: unknown }).allowedValue);
    case 'type': {
      const types = (error.params as { type: string | string[] }).type;
      return phrase.type(...(Array.isArray(types) ? types : types.split(',')));
    }
    case 'anyOf':
      return phrase.type(
        ...(error.schema as Array<{ type?: string; const?: unknown; enum?: unknown[] }>).map((branch) => branch.type ?? (branch.enum ? branch.enum.join(' or ') : String(branch.const))),
      );
    case 'minimum':
      return phrase.minimum(limit);
    case 'maximum':
      return phrase.maximum(limit);
    case 'minItems':
      return phrase.minItems(limit);
    case 'maxItems':
      return phrase.maxItems(limit);
    case 'minLength':
      return phrase.minLength(limit);
    case 'maxLength':
      return phrase.maxLength(limit);
    default:
      return error.message ?? 'is invalid';
  }
}

/** Keywords that only say a value took the wrong branch; a sibling error usually says more. */
const branchMisses = new Set(['type', 'enum', 'const', 'anyOf']);

/**
 * The error to report: the deepest in the document, and at that depth one
 * that says what is wrong (too many items, a missing field) over one that only
 * says a branch did not match; failing that, the last (an anyOf summary).
 */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject | undefined {
  let depth = -1;
  for (const error of errors) depth = Math.max(depth, error.instancePath.length);
  const deepest = errors.filter((error) => error.instancePath.length === depth);
  return deepest.find((error) => !branchMisses.has(error.keyword)) ?? deepest.at(-1);
}

/** Checks a parsed body against the request schema; throws a 400 naming the first bad field. */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!validateChatRequest(body)) {
    const error = mostSpecific(validateChatRequest.errors ?? []);
    if (error) fail(fieldOf(error), detailOf(error));
    fail('body', 'is invalid');
  }
  if (body.n != null && body.n > 1) fail('n', 'only n = 1 is supported');
  body.tools?.forEach((tool, index) => assertSchemaDepth(tool.function.parameters, `tools.${index}.function.parameters`));
  if (body.response_format?.type === 'json_schema') assertSchemaDepth(body.response_format.json_schema, 'response_format.json_schema');
  body.functions?.forEach((fn, index) => assertSchemaDepth(fn.parameters, `functions.${index}.parameters`));
  if (body.functions !== undefined && body.tools !== undefined) fail('functions', 'send tools or the legacy functions, not both');
  return body;
}
