import type { ErrorRule } from './types.ts';

/** An upstream error body, read once for every rule of a plugin: its text, and its documented code when it has one. */
interface ErrorBody {
  readonly text: string;
  /** `error.code`, a top-level `code`, or `errors[0].code`, as text; undefined when the body has none. */
  readonly code: string | undefined;
}

const MAX_PARSED_BODY = 65_536;

function codeText(value: unknown): string | undefined {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? String(value) : undefined;
}

/** The documented error code of a JSON error body (OpenAI's `error.code`, a top-level `code`, Cloudflare's `errors[0].code`). */
export function errorCode(text: string): string | undefined {
  if (text === '' || text.length > MAX_PARSED_BODY || text.trimStart()[0] !== '{') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const body = parsed as { error?: { code?: unknown }; code?: unknown; errors?: unknown };
  const nested = typeof body.error === 'object' && body.error !== null ? codeText(body.error.code) : undefined;
  if (nested !== undefined) return nested;
  const top = codeText(body.code);
  if (top !== undefined) return top;
  const first: unknown = Array.isArray(body.errors) ? body.errors[0] : undefined;
  return typeof first === 'object' && first !== null ? codeText((first as { code?: unknown }).code) : undefined;
}

/** The body as rules read it; the code is parsed only when a rule asks for one. */
function readErrorBody(text: string): ErrorBody {
  let code: string | undefined | null = null;
  return {
    text,
    get code() {
      if (code === null) code = errorCode(text);
      return code;
    },
  };
}

/** Whether a plugin's error rule describes this answer. */
function ruleMatches(rule: ErrorRule, status: number, body: ErrorBody): boolean {
  const statusMatches = typeof rule.status === 'number' ? rule.status === status : rule.status.includes(status);
  if (!statusMatches) return false;
  if (rule.code !== undefined && body.code !== String(rule.code)) return false;
  return rule.body === undefined || rule.body.test(body.text);
}

/** The first of `rules` that describes this answer. */
export function matchingRule(rules: readonly ErrorRule[] | undefined, status: number, text: string): ErrorRule | undefined {
  if (!rules || rules.length === 0) return undefined;
  const body = readErrorBody(text);
  return rules.find((rule) => ruleMatches(rule, status, body));
}
