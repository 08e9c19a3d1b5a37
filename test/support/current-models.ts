/**
 * The models aliases pick first, from the plugins' curated lists: each review of those lists (retired models,
 * new ones) moves them, so tests that name the first Groq or Cerebras model take it from here.
 */
import { providerPlugins } from './plugins.ts';

const plugins = await providerPlugins();

/** A provider's models an alias may pick, in the plugin's order. */
export function currentModels(providerId: string): string[] {
  return (plugins.find((plugin) => plugin.id === providerId)?.models ?? []).filter((model) => !model.deprecated).map((model) => model.id);
}

/** Text as a literal inside a RegExp. */
export const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export const [GROQ_FIRST, GROQ_NEXT] = currentModels('groq') as [string, string];
export const [CEREBRAS_FIRST] = currentModels('cerebras') as [string];
/** The same, escaped for a RegExp. */
export const [G1, G2, C1] = [GROQ_FIRST, GROQ_NEXT, CEREBRAS_FIRST].map(escaped) as [string, string, string];

/** Whether that Cerebras model takes a reasoning effort (which Freeway then sends as reasoning_effort). */
export const CEREBRAS_FIRST_TAKES_EFFORT =
  plugins.find((plugin) => plugin.id === 'cerebras')?.models.find((model) => model.id === CEREBRAS_FIRST)?.reasoningEffort === true;
/** That Cerebras model's context window. */
export const CEREBRAS_FIRST_WINDOW = plugins.find((plugin) => plugin.id === 'cerebras')?.models.find((model) => model.id === CEREBRAS_FIRST)?.contextWindow;
