import type { Request, RequestHandler, Response } from 'express';
import type { Catalog } from '../../catalog/catalog.ts';
import { unknownModelMessage } from '../../catalog/suggest.ts';
import { clip, HttpError } from '../http/errors.ts';

export function listModels(catalog: Catalog): RequestHandler {
  return (_req: Request, res: Response) => {
    res.type('application/json').send(catalog.listBody);
  };
}

/** `GET /v1/models/{id}`; ids contain `/`, so the route captures every remaining segment. */
export function retrieveModel(catalog: Catalog): RequestHandler {
  return (req: Request, res: Response) => {
    const segments = (req.params as Record<string, string | string[]>).id;
    const id = Array.isArray(segments) ? segments.join('/') : String(segments);
    const body = catalog.objectBodies.get(id);
    if (body === undefined) throw new HttpError(404, 'invalid_request_error', unknownModelMessage(catalog, id, clip(id)));
    res.type('application/json').send(body);
  };
}
