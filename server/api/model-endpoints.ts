import type { Request, RequestHandler, Response } from 'express';
import type { Catalog } from '../../catalog/catalog.ts';
import { didYouMean } from '../../catalog/suggest.ts';
import { clip, freewayError } from '../core/errors.ts';
import type { KeyModelList } from '../models/key-models.ts';

/** `GET /v1/models`: the curated catalog, serialized once; with key headers, what the request's keys can use. */
export function listModels(catalog: Catalog, forKeys?: KeyModelList): RequestHandler {
  return async (req: Request, res: Response) => {
    const objects = forKeys && (await forKeys(req));
    if (objects) res.json({ object: 'list', data: objects });
    else res.type('application/json').send(catalog.listBody);
  };
}

/**
 * The `{id}` of `GET /v1/models/{id}` (or the `{name}` of Gemini's `/v1beta/models/{name}`);
 * ids contain `/`, so the route captures every remaining segment.
 */
export function modelIdOf(req: Request, param: 'id' | 'name' = 'id'): string {
  const segments = (req.params as Record<string, string | string[]>)[param];
  return Array.isArray(segments) ? segments.join('/') : String(segments);
}

/** `GET /v1/models/{id}`; with key headers, a model of the keys' live lists too. */
export function retrieveModel(catalog: Catalog, forKeys?: KeyModelList): RequestHandler {
  return async (req: Request, res: Response) => {
    const id = modelIdOf(req);
    const objects = forKeys && (await forKeys(req));
    const found = objects?.find((object) => object.id === id);
    if (found) {
      res.json(found);
      return;
    }
    const body = catalog.objectBodies.get(id);
    if (body === undefined) throw freewayError('FREEWAY_UNKNOWN_MODEL', { model: clip(id), suggestion: didYouMean(catalog, id) });
    res.type('application/json').send(body);
  };
}
