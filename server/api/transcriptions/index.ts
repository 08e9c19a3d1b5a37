import type { TranscriptionModelV4 } from '@ai-sdk/provider';
import { UnsupportedFunctionalityError } from '@ai-sdk/provider';
import type { Request, RequestHandler, Response } from 'express';
import type { Catalog, CatalogModel } from '../../../catalog/catalog.ts';
import type { MultipartBody } from '../../http/multipart-body.ts';
import { lookUpModel } from '../lookup.ts';
import { runWholeCall, type WholeCallDeps } from '../whole-call.ts';
import { parseTranscriptionRequest, type TranscriptionRequest } from './request.ts';
import { renderTranscript, type Transcript } from './response.ts';
import { beginCall, type AttemptControl, type Candidate } from '../../routing/index.ts';
import { authHeadersFor, type KeyReader } from '../../core/keys.ts';

export type TranscriptionModelSource = (model: CatalogModel) => Promise<TranscriptionModelV4>;

/** With the router, the shutdown gate and MAX_WAIT_MS of every call routed whole. */
export interface TranscriptionsDeps extends WholeCallDeps {
  readonly catalog: Catalog;
  readonly readKeys: KeyReader;
  readonly models: TranscriptionModelSource;
}

/** One attempt: the whole file to one deployment; the router fails over to the next of the same family. */
async function transcribe(request: TranscriptionRequest, models: TranscriptionModelSource, candidate: Candidate, control: AttemptControl): Promise<Transcript> {
  control.awaitWholeAnswer();
  const { model: entry, key } = candidate;
  const { provider } = entry;
  const spec = entry.transcription;
  if (!spec) throw new Error(`${entry.id} is not a transcription model`);
  const options = provider.transcriptionOptions?.(request.extras);
  const result = await beginCall(control, async () => {
    if (request.audio.length > spec.maxBytes) {
      // Nothing sent: another provider of the family may take a larger file.
      throw new UnsupportedFunctionalityError({ functionality: `audio files over ${spec.maxBytes} bytes`, message: `takes audio files of at most ${spec.maxBytes} bytes` });
    }
    const model = await models(entry);
    return model.doGenerate({
      audio: request.audio,
      mediaType: request.mediaType,
      headers: authHeadersFor(provider, key),
      abortSignal: control.signal,
      providerOptions: options === undefined ? undefined : { [provider.id]: options },
    });
  });
  if (result.response?.headers) control.responseHeaders(result.response.headers);
  return { text: result.text, segments: result.segments, language: result.language, durationInSeconds: result.durationInSeconds };
}

/** `POST /v1/audio/transcriptions`: OpenAI's transcription API over the catalog's Whisper deployments. */
export function transcriptionsRoute(deps: TranscriptionsDeps): RequestHandler {
  const { catalog, readKeys, models } = deps;
  return async (req: Request, res: Response) => {
    const keys = readKeys(req.headers);
    res.locals.keys = keys;
    const request = parseTranscriptionRequest(req.body as MultipartBody);
    res.locals.trace?.requested({ operation: 'transcription', model: request.model, stream: false });
    const entry = await lookUpModel({ catalog, target: request.model, kind: 'transcription' });
    const done = await runWholeCall(res, deps, { entry, keys, attempt: (candidate, control) => transcribe(request, models, candidate, control) });
    if (!done) return;
    const { type, body } = renderTranscript(done.value, request.format);
    res.type(type).send(body);
  };
}
