import type { ClientApi, ClientApiOptions } from '../client-api.ts';
import { modelResolver } from '../model-map.ts';
import { requiredCapabilities, toCallOptions, toExtras } from './request.ts';
import { toMessage } from './response.ts';
import { messagesStream } from './stream.ts';
import type { MessagesRequest } from './types.ts';
import { parseMessagesRequest } from './validate.ts';

/** Anthropic's Messages API, `POST /v1/messages`, and its token count, `POST /v1/messages/count_tokens`. */
export function messagesApi(options: ClientApiOptions): ClientApi<MessagesRequest> {
  return {
    parse: (body) => parseMessagesRequest(body),
    model: (request) => request.model,
    resolveModel: modelResolver(options),
    callOptions: toCallOptions,
    needs: requiredCapabilities,
    stream: (request) => request.stream === true,
    user: (request) => request.metadata?.user_id ?? undefined,
    extras: toExtras,
    respond: toMessage,
    openStream: messagesStream,
    tokenCount: {
      parse: (body) => parseMessagesRequest(body, true),
      answer: (inputTokens) => ({ input_tokens: inputTokens }),
    },
  };
}
