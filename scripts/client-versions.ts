/**
 * The coding-agent CLIs `npm run clients` installs and runs, at the versions it pins: the one place a
 * tested version is stated. docs/clients.md, docs/messages.md, docs/responses.md and the README quote
 * these, and test/ops/client-versions.test.ts holds them to it.
 */
export const pinnedClients: Readonly<Record<string, string>> = {
  '@openai/codex': '0.169.0',
  '@anthropic-ai/claude-code': '2.1.197',
  'opencode-ai': '1.18.33',
  '@google/gemini-cli': '0.61.0',
};
