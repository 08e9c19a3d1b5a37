import type { RequestHandler } from 'express';
import type { Catalog } from '../../catalog/catalog.ts';
import { estimateInputTokens } from '../routing/index.ts';
import type { ClientApi } from './client-api.ts';
import { lookUpModel } from './lookup.ts';

/**
 * A client API's token count (`POST /v1/messages/count_tokens`, Gemini's `countTokens`):
 * the estimate routing sizes requests with, of the request as it would be sent, without
 * any upstream call. The model goes through the API's model map and must be one the
 * catalog knows (else the API's 404).
 */
export function tokenCountRoute<Req>(api: ClientApi<Req>, catalog: Catalog): RequestHandler {
  const count = api.tokenCount;
  if (count === undefined) throw new Error('this client API has no token count');
  return async (req, res) => {
    const request = count.parse(req.body, req);
    await lookUpModel({ catalog, target: api.resolveModel(api.model(request)), kind: 'chat' });
    res.json(count.answer(estimateInputTokens(api.callOptions(request))));
  };
}
