/**
 * A tool call's arguments as a client API sends them (a JSON string) -> the AI SDK's
 * `input`. Empty means no arguments; text that is not JSON is passed on as it is, for
 * the provider to judge, rather than refused here.
 */
export function parseToolArguments(raw: string): unknown {
  if (raw === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
