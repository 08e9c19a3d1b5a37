import type { ClientApi, ClientApiOptions } from '../client-api.ts';
import { modelResolver } from '../model-map.ts';
import { isLegacy, requiredCapabilities, toCallOptions, toExtras } from './request.ts';
import { toChatCompletion } from './response.ts';
import { chatStream } from './stream.ts';
import type { ChatRequest } from './types.ts';
import { parseChatRequest } from './validate.ts';

/** OpenAI's chat completions, `POST /v1/chat/completions`. */
export function chatApi(options: ClientApiOptions): ClientApi<ChatRequest> {
  return {
    parse: (body) => parseChatRequest(body),
    model: (request) => request.model,
    resolveModel: modelResolver(options),
    callOptions: toCallOptions,
    needs: requiredCapabilities,
    stream: (request) => request.stream === true,
    user: (request) => request.user,
    extras: toExtras,
    respond: (result, request) => toChatCompletion(result, request.model, isLegacy(request)),
    openStream: chatStream,
  };
}
