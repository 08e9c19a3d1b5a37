import type { FetchFunction } from '../types.ts';

/** The header carries `account_id:api_token`; Workers AI's OpenAI endpoint lives under the account. */
export function splitKey(value: string): { accountId: string; token: string } | undefined {
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) return undefined;
  return { accountId: value.slice(0, colon), token: value.slice(colon + 1) };
}

/** Cloudflare account ids are 32 hexadecimal characters. */
export const accountIdPattern = /^[0-9a-f]{32}$/i;

export const accountHeader = 'x-freeway-cloudflare-account';
export const accountPlaceholder = '/accounts/_account_/';

/**
 * Workers AI's URL holds the caller's account id, but a model is built once
 * for every caller. So the model's URL has a placeholder, the account id
 * travels with the call as a header, and this fetch moves it into the path.
 */
export function withAccountInPath(fetch: FetchFunction | undefined): FetchFunction {
  return (input, init) => {
    const { [accountHeader]: accountId, ...headers } = (init?.headers ?? {}) as Record<string, string>;
    if (!accountId) throw new Error('Cloudflare call without an account id');
    const url = String(input).replace(accountPlaceholder, `/accounts/${encodeURIComponent(accountId)}/`);
    return (fetch ?? globalThis.fetch)(url, { ...init, headers });
  };
}

/** Bearer auth with the token; the account id rides along as a header until the fetch moves it into the path. */
export function cloudflareAuth(key: string): Record<string, string> {
  const parts = splitKey(key);
  if (!parts) throw new Error('X-Cloudflare-Key must have the form account_id:api_token.');
  return { authorization: `Bearer ${parts.token}`, [accountHeader]: parts.accountId };
}
