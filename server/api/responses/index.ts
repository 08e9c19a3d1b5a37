import type { ClientApi, ClientApiOptions } from '../client-api.ts';
import { modelResolver } from '../model-map.ts';
import { requiredCapabilities, toCallOptions, toExtras } from './request.ts';
import { toResponse } from './response.ts';
import { responsesStream } from './stream.ts';
import type { ResponsesRequest } from './types.ts';
import { parseResponsesRequest } from './validate.ts';

/** OpenAI's Responses API, `POST /v1/responses`, without state: every request carries its whole input. */
export function responsesApi(options: ClientApiOptions): ClientApi<ResponsesRequest> {
  const parseOptions = { hostedTools: options.hostedTools };
  return {
    parse: (body) => parseResponsesRequest(body, parseOptions),
    model: (request) => request.model,
    resolveModel: modelResolver(options),
    callOptions: toCallOptions,
    needs: requiredCapabilities,
    stream: (request) => request.stream,
    user: (request) => request.user,
    extras: toExtras,
    droppedTools: (request) => request.droppedTools,
    respond: toResponse,
    openStream: responsesStream,
  };
}
