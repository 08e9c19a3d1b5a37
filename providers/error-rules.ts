import type { ErrorRule } from './types.ts';

/** Whether a plugin's error rule describes this answer. */
export function ruleMatches(rule: ErrorRule, status: number, body: string): boolean {
  const statusMatches = typeof rule.status === 'number' ? rule.status === status : rule.status.includes(status);
  return statusMatches && (rule.body === undefined || rule.body.test(body));
}
