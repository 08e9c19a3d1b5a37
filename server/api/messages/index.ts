import type { Request, RequestHandler, Response } from 'express';
import type { Catalog } from '../../../catalog/catalog.ts';
import type { ClientApi } from '../completion.ts';
import { lookUpModel } from '../lookup.ts';
import { estimateInputTokens } from '../../routing/index.ts';
import { requiredCapabilities, toCallOptions, toExtras } from './request.ts';
import { toMessage } from './response.ts';
import { messagesStream } from './stream.ts';
import type { MessagesRequest } from './types.ts';
import { parseMessagesRequest } from './validate.ts';

/** Anthropic's Messages API, `POST /v1/messages`. */
export function messagesApi(resolve: (model: string) => string): ClientApi<MessagesRequest> {
  return {
    parse: (body) => parseMessagesRequest(body),
    target: (request) => resolve(request.model),
    sentModel: (request) => request.model,
    callOptions: toCallOptions,
    needs: requiredCapabilities,
    stream: (request) => request.stream === true,
    user: (request) => request.metadata?.user_id ?? undefined,
    extras: toExtras,
    respond: toMessage,
    openStream: messagesStream,
  };
}

/** `POST /v1/messages/count_tokens`: `{input_tokens}`, estimated here without any upstream call, from the prompt Freeway would send. */
export function countTokens(catalog: Catalog, resolve: (model: string) => string): RequestHandler {
  return async (req: Request, res: Response) => {
    const request = parseMessagesRequest(req.body, true);
    await lookUpModel({ catalog, target: resolve(request.model), kind: 'chat' });
    // The estimate routing sizes requests with, of the request as it would be sent.
    res.json({ input_tokens: estimateInputTokens(toCallOptions(request)) });
  };
}
