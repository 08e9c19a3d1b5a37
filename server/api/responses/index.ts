import type { ClientApi } from '../completion.ts';
import { requiredCapabilities, toCallOptions, toExtras } from './request.ts';
import { toResponse } from './response.ts';
import { responsesStream } from './stream.ts';
import type { ResponsesRequest } from './types.ts';
import { parseResponsesRequest, type ResponsesParseOptions } from './validate.ts';

/** OpenAI's Responses API, `POST /v1/responses`, without state: every request carries its whole input. */
export function responsesApi(options: ResponsesParseOptions): ClientApi<ResponsesRequest> {
  return {
    parse: (body) => parseResponsesRequest(body, options),
    target: (request) => request.model,
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
