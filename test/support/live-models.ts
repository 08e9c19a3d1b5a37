import type { ServerResponse } from 'node:http';
import { kindFromId, openAIModelListing } from '../../providers/openai-compatible.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { providerPlugins } from './plugins.ts';
import { json, openAIError, openAIText, type SeenRequest, type UpstreamHandler } from './upstream.ts';

/**
 * The Groq plugin with a listing of its own, so that the tests of live model lists do
 * not depend on which plugins declare one: OpenAI's `GET /models`, every model free
 * (Groq's free plan serves every listed model), the kind told from the id.
 */
export async function groqWithListing(): Promise<ProviderPlugin> {
  const groq = (await providerPlugins()).find((plugin) => plugin.id === 'groq');
  if (!groq) throw new Error('the groq plugin is missing');
  return {
    ...groq,
    listing: openAIModelListing('https://console.groq.com/docs/api-reference#models-list', (entry) => {
      const contextWindow = typeof entry.context_window === 'number' ? entry.context_window : undefined;
      return { id: entry.id, kind: kindFromId(entry.id), free: true, ...(contextWindow === undefined ? {} : { contextWindow }) };
    }),
  };
}

/** The curated chat models an alias may pick, in plugin order. */
export const curatedIds = (plugin: ProviderPlugin): string[] =>
  plugin.models.filter((model) => !model.deprecated && (model.kind ?? 'chat') === 'chat').map((model) => model.id);

/** OpenAI's model list as Groq sends it (https://console.groq.com/docs/api-reference#models-list). */
export function modelList(res: ServerResponse, ids: readonly string[]): void {
  json(res, 200, {
    object: 'list',
    data: ids.map((id) => ({ id, object: 'model', created: 1693721698, owned_by: 'Groq', active: true, context_window: 131072, public_apps: null })),
  });
}

export const isListing = (req: SeenRequest): boolean => req.method === 'GET' && req.path.endsWith('/models');
export const chatModels = (requests: readonly SeenRequest[]): string[] => requests.filter((req) => !isListing(req)).map((req) => String(req.body?.model));
export const listings = (requests: readonly SeenRequest[]): number => requests.filter(isListing).length;

/** A provider that lists `ids()` and answers chat calls: `chat(model)` decides, by default "Hello". */
export function provider(ids: () => readonly string[], chat: (model: string, req: SeenRequest, res: ServerResponse) => void = (_model, req, res) => openAIText(res, 'Hello', req)): UpstreamHandler {
  return (req, res) => {
    if (isListing(req)) modelList(res, ids());
    else chat(String(req.body?.model), req, res);
  };
}

/** A provider whose listing answers `ids` only once `release()` is called, so that concurrent first requests all meet it under way. */
export function heldListing(ids: readonly string[]): { readonly handler: UpstreamHandler; release(): void } {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  return {
    async handler(req, res) {
      if (!isListing(req)) return openAIText(res, 'Hello', req);
      await held;
      modelList(res, ids);
    },
    release: () => release(),
  };
}

/** Groq's documented "model not found" answer (404, `model_not_found`). */
export function modelNotFound(res: ServerResponse, model: string): void {
  json(res, 404, { error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', code: 'model_not_found' } });
}

export { openAIError };
