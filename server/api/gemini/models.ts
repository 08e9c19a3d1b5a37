import type { Request, RequestHandler, Response } from 'express';
import type { Alias, Catalog, CatalogModel, ModelObject } from '../../../catalog/catalog.ts';
import { didYouMean } from '../../../catalog/suggest.ts';
import { clip, freewayError } from '../../core/errors.ts';
import type { KeyModelList } from '../../models/key-models.ts';
import { modelIdOf } from '../model-endpoints.ts';
import { MAX_MODEL_ID_LENGTH } from '../limits.ts';
import { fail } from '../validation.ts';
import { queryOf } from './path.ts';

/**
 * Gemini's Model object (https://ai.google.dev/api/models#Model, read 2026-11-27) for an
 * alias or model of Freeway's: `name` is `models/` and the id Freeway routes by, the
 * token limits are the model's (for an alias, the smallest of its models', what any
 * request to it may count on); with key headers, Freeway's own fields say what those keys
 * can use, as on `GET /v1/models`.
 */
export interface GeminiModel {
  name: string;
  baseModelId: string;
  displayName: string;
  inputTokenLimit?: number;
  outputTokenLimit?: number;
  supportedGenerationMethods: string[];
  thinking?: boolean;
  tier?: ModelObject['tier'];
  source?: ModelObject['source'];
  available?: boolean;
  reason?: string;
}

const chatMethods = ['generateContent', 'streamGenerateContent', 'countTokens'];
const embeddingMethods = ['embedContent', 'batchEmbedContents'];

/** ListModels' page size: "If unspecified, at most 50 ... at most 1000" (model_service.proto). */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

const smallest = (values: ReadonlyArray<number | undefined>): number | undefined =>
  values.length === 0 || values.some((value) => value === undefined) ? undefined : Math.min(...(values as number[]));

function limitsOf(entry: Alias | CatalogModel | undefined, object: ModelObject): Pick<GeminiModel, 'inputTokenLimit' | 'outputTokenLimit'> {
  if (entry && 'models' in entry) {
    const embedding = entry.kind === 'embedding';
    return {
      inputTokenLimit: smallest(entry.models.map((model) => (embedding ? model.embedding?.contextWindow : model.spec.contextWindow))),
      outputTokenLimit: embedding ? undefined : smallest(entry.models.map((model) => model.spec.maxOutputTokens)),
    };
  }
  const input = entry?.embedding?.contextWindow ?? object.context_window ?? undefined;
  return { inputTokenLimit: input === null ? undefined : input, outputTokenLimit: entry?.embedding ? undefined : entry?.spec.maxOutputTokens };
}

function displayNameOf(entry: Alias | CatalogModel | undefined, object: ModelObject): string {
  if (object.owned_by === 'freeway') return `${object.id} (Freeway alias)`;
  return entry && !('models' in entry) ? `${entry.provider.name} ${entry.spec.id}` : object.id;
}

/** An entry of `GET /v1/models` in Gemini's shape; undefined for what no Gemini method serves (transcription). */
export function toGeminiModel(object: ModelObject, catalog: Catalog, keyed: boolean): GeminiModel | undefined {
  const kind = object.kind ?? (object.capabilities.includes('embedding') ? 'embedding' : object.capabilities.includes('transcription') ? 'transcription' : 'chat');
  if (kind !== 'chat' && kind !== 'embedding') return undefined;
  const entry = catalog.byId.get(object.id);
  const model: GeminiModel = {
    name: `models/${object.id}`,
    baseModelId: object.id,
    displayName: displayNameOf(entry, object),
    ...limitsOf(entry, object),
    supportedGenerationMethods: kind === 'chat' ? chatMethods : embeddingMethods,
  };
  if (model.inputTokenLimit === undefined) delete model.inputTokenLimit;
  if (model.outputTokenLimit === undefined) delete model.outputTokenLimit;
  if (kind === 'chat') model.thinking = object.capabilities.includes('reasoning');
  if (keyed && object.owned_by !== 'freeway') {
    const { tier, source, available, reason } = object;
    Object.assign(model, reason === undefined ? { tier, source, available } : { tier, source, available, reason });
  }
  return model;
}

function pageOf(req: Request, total: number): { from: number; to: number } {
  const query = queryOf(req);
  const rawSize = query.get('pageSize');
  const size = rawSize === null ? DEFAULT_PAGE_SIZE : Number(rawSize);
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE_SIZE) fail('pageSize', `must be an integer from 0 to ${MAX_PAGE_SIZE}`);
  const token = query.get('pageToken');
  const from = token === null || token === '' ? 0 : Number(token);
  if (!Number.isInteger(from) || from < 0 || from > total) fail('pageToken', 'must be the nextPageToken of an earlier page');
  return { from, to: Math.min(total, from + (size === 0 ? DEFAULT_PAGE_SIZE : size)) };
}

export interface GeminiModels {
  /** `GET /v1beta/models`: `{models, nextPageToken}`, paged by `pageSize` and `pageToken`. */
  readonly list: RequestHandler;
  /** `GET /v1beta/models/{model}`; a Gemini name the model map sends elsewhere is answered with what serves it. */
  readonly get: RequestHandler;
}

export function geminiModels(catalog: Catalog, resolve: (model: string) => string, forKeys?: KeyModelList): GeminiModels {
  const convert = (objects: readonly ModelObject[], keyed: boolean): GeminiModel[] =>
    objects.flatMap((object) => toGeminiModel(object, catalog, keyed) ?? []);
  const all = convert((JSON.parse(catalog.listBody) as { data: ModelObject[] }).data, false);
  const byName = new Map(all.map((model) => [model.baseModelId, model]));
  const mine = async (req: Request): Promise<GeminiModel[] | undefined> => {
    const objects = forKeys && (await forKeys(req));
    return objects ? convert(objects, true) : undefined;
  };
  return {
    async list(req: Request, res: Response) {
      const models = (await mine(req)) ?? all;
      const { from, to } = pageOf(req, models.length);
      // The SDKs' pagers follow nextPageToken for as long as there is one: none on the last page.
      res.json(to < models.length ? { models: models.slice(from, to), nextPageToken: String(to) } : { models: models.slice(from, to) });
    },
    async get(req: Request, res: Response) {
      const asked = modelIdOf(req, 'name');
      // A name longer than any route takes is no model: it is not run through the map's patterns.
      const target = asked.length > MAX_MODEL_ID_LENGTH ? asked : resolve(asked);
      // Only the model asked for is turned into Gemini's shape, not the keys' whole list.
      const keyed = forKeys && (await forKeys(req))?.find((object) => object.id === target);
      const found = (keyed && toGeminiModel(keyed, catalog, true)) ?? byName.get(target);
      if (found === undefined) throw freewayError('FREEWAY_UNKNOWN_MODEL', { model: clip(asked), suggestion: didYouMean(catalog, asked) });
      res.json(target === asked ? found : { ...found, name: `models/${asked}`, displayName: `${asked} (served by ${target})` });
    },
  };
}
