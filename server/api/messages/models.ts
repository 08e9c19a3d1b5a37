import type { Request, RequestHandler, Response } from 'express';
import type { Catalog, ModelObject } from '../../../catalog/catalog.ts';
import { didYouMean } from '../../../catalog/suggest.ts';
import { clip, freewayError } from '../../core/errors.ts';
import { fail } from '../validation.ts';
import type { KeyModelList } from '../../models/key-models.ts';
import { modelIdOf } from '../model-endpoints.ts';

const DEFAULT_LIMIT = 20;

/** What one of Anthropic's model objects says of a model or alias. */
interface ModelInfo {
  readonly id: string;
  readonly displayName: string;
  readonly maxInputTokens: number | null;
  readonly deprecated: boolean;
  /** Freeway's own fields, with key headers (tier, source, availability). */
  readonly extra?: Partial<ModelObject>;
}
const MAX_LIMIT = 1000;

interface AnthropicModels {
  /** `GET /v1/models` for a client that sent `anthropic-version`. */
  readonly list: RequestHandler;
  /** `GET /v1/models/{id}` for such a client. */
  readonly retrieve: RequestHandler;
}

function pageParams(req: Request): { limit: number; afterId: string | null; beforeId: string | null } {
  const at = req.originalUrl.indexOf('?');
  const query = new URLSearchParams(at === -1 ? '' : req.originalUrl.slice(at + 1));
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? DEFAULT_LIMIT : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) fail('limit', `must be an integer from 1 to ${MAX_LIMIT}`);
  return { limit, afterId: query.get('after_id'), beforeId: query.get('before_id') };
}

/**
 * Anthropic's model list and model objects (`type: "model"`), built once at
 * start-up: the aliases first, then every concrete model, in the order of the
 * OpenAI list. Pages follow Anthropic's `limit` (default 20, at most 1000),
 * `after_id` and `before_id`.
 */
export function anthropicModels(catalog: Catalog, created: number, forKeys?: KeyModelList): AnthropicModels {
  const createdAt = new Date(created * 1000).toISOString().replace('.000Z', 'Z');
  const info = ({ id, displayName, maxInputTokens, deprecated, extra }: ModelInfo): string =>
    JSON.stringify({
      type: 'model',
      id,
      display_name: displayName,
      created_at: createdAt,
      capabilities: null,
      deprecated_at: null,
      lifecycle: deprecated ? 'deprecated' : 'active',
      line: null,
      max_input_tokens: maxInputTokens,
      max_tokens: null,
      retires_at: null,
      ...extra,
    });
  /** With key headers: the ids and bodies of what the request's keys can use, in the order of the OpenAI list. */
  async function keyed(req: Request): Promise<{ ids: string[]; bodies: Map<string, string> } | undefined> {
    const objects = forKeys && (await forKeys(req));
    if (!objects) return undefined;
    const named = new Map(catalog.models.map((model) => [model.id, `${model.provider.name} ${model.spec.id}`]));
    const bodies = new Map<string, string>();
    for (const object of objects) {
      if (object.owned_by === 'freeway') {
        bodies.set(object.id, info({ id: object.id, displayName: `${object.id} (Freeway alias)`, maxInputTokens: null, deprecated: false }));
        continue;
      }
      const { tier, source, available, reason, kind } = object;
      const extra: Partial<ModelObject> = reason === undefined ? { tier, source, available } : { tier, source, available, reason };
      if (kind !== undefined) extra.kind = kind;
      bodies.set(object.id, info({ id: object.id, displayName: named.get(object.id) ?? object.id, maxInputTokens: object.context_window ?? null, deprecated: object.deprecated === true, extra }));
    }
    return { ids: [...bodies.keys()], bodies };
  }
  const ids: string[] = [];
  const bodies = new Map<string, string>();
  for (const alias of catalog.aliases) {
    ids.push(alias.id);
    bodies.set(alias.id, info({ id: alias.id, displayName: `${alias.id} (Freeway alias)`, maxInputTokens: null, deprecated: false }));
  }
  for (const model of catalog.models) {
    ids.push(model.id);
    bodies.set(model.id, info({ id: model.id, displayName: `${model.provider.name} ${model.spec.id}`, maxInputTokens: model.spec.contextWindow, deprecated: model.spec.deprecated === true }));
  }
  const allPositions = new Map(ids.map((id, index) => [id, index]));
  const allIds = ids;
  const allBodies = bodies;

  return {
    async list(req: Request, res: Response) {
      const { limit, afterId, beforeId } = pageParams(req);
      const mine = await keyed(req);
      const ids = mine?.ids ?? allIds;
      const bodies = mine?.bodies ?? allBodies;
      const positions = mine ? new Map(ids.map((id, index) => [id, index])) : allPositions;
      let from = 0;
      let to = ids.length;
      if (afterId !== null) from = (positions.get(afterId) ?? ids.length - 1) + 1;
      if (beforeId !== null) {
        to = positions.get(beforeId) ?? 0;
        from = Math.max(from, to - limit);
      }
      const end = Math.min(to, from + limit);
      const page = ids.slice(from, Math.max(from, end));
      const body = `{"data":[${page.map((id) => bodies.get(id)).join(',')}],"has_more":${beforeId !== null ? from > 0 : end < to},"first_id":${JSON.stringify(page[0] ?? null)},"last_id":${JSON.stringify(page.at(-1) ?? null)}}`;
      res.type('application/json').send(body);
    },
    async retrieve(req: Request, res: Response) {
      const id = modelIdOf(req);
      const body = (await keyed(req))?.bodies.get(id) ?? allBodies.get(id);
      if (body === undefined) throw freewayError('FREEWAY_UNKNOWN_MODEL', { model: clip(id), suggestion: didYouMean(catalog, id) });
      res.type('application/json').send(body);
    },
  };
}
