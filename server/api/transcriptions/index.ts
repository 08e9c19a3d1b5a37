import type { TranscriptionModelV4 } from '@ai-sdk/provider';
import { UnsupportedFunctionalityError } from '@ai-sdk/provider';
import type { Request, RequestHandler, Response } from 'express';
import { kindOf, wrongKindMessage, type Catalog, type CatalogModel } from '../../../catalog/catalog.ts';
import { unknownModelMessage } from '../../../catalog/suggest.ts';
import { clip, HttpError } from '../../http/errors.ts';
import type { MultipartBody } from '../../http/multipart-body.ts';
import type { LogLocals } from '../../http/request-log.ts';
import type { ShutdownGate } from '../../http/shutdown.ts';
import type { KeyReader } from '../../routing/keys.ts';
import type { AttemptControl, AttemptLog, Candidate, Router } from '../../routing/router.ts';
import { beginCall } from '../../routing/upstream.ts';
import { callerController, routeFailed, setRoutingHeaders } from '../completion.ts';
import { parseTranscriptionRequest, type TranscriptionRequest } from './request.ts';
import { renderTranscript, type Transcript } from './response.ts';

export type TranscriptionModelSource = (model: CatalogModel) => Promise<TranscriptionModelV4>;

export interface TranscriptionsDeps {
  readonly catalog: Catalog;
  readonly readKeys: KeyReader;
  readonly router: Router;
  readonly models: TranscriptionModelSource;
  readonly shutdown: ShutdownGate;
}

/** One attempt: the whole file to one deployment; the router fails over to the next of the same family. */
async function transcribe(request: TranscriptionRequest, models: TranscriptionModelSource, candidate: Candidate, control: AttemptControl): Promise<Transcript> {
  control.whole();
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
      headers: provider.authHeaders(key),
      abortSignal: control.signal,
      providerOptions: options === undefined ? undefined : { [provider.id]: options },
    });
  });
  if (result.response?.headers) control.responseHeaders(result.response.headers);
  return { text: result.text, segments: result.segments, language: result.language, durationInSeconds: result.durationInSeconds };
}

/** `POST /v1/audio/transcriptions`: OpenAI's transcription API over the catalog's Whisper deployments. */
export function transcriptionsRoute(deps: TranscriptionsDeps): RequestHandler {
  const { catalog, readKeys, router, models } = deps;
  return async (req: Request, res: Response) => {
    const keys = readKeys(req.headers);
    res.locals.keys = keys;
    const request = parseTranscriptionRequest(req.body as MultipartBody);
    const entry = catalog.byId.get(request.model);
    if (!entry) throw new HttpError(404, 'invalid_request_error', unknownModelMessage(catalog, request.model, clip(request.model)));
    const kind = kindOf(entry);
    if (kind !== 'transcription') throw new HttpError(400, 'invalid_request_error', wrongKindMessage(entry.id, kind, 'transcription'));
    const plan = await router.plan(entry, keys, []);
    const caller = callerController(res, deps.shutdown);
    const attempts: AttemptLog[] = [];
    (res.locals as LogLocals).attempts = attempts;
    try {
      const routed = await router.run(plan, keys, (candidate, control) => transcribe(request, models, candidate, control), caller.signal, attempts);
      await routed.finish();
      setRoutingHeaders(res, routed, attempts);
      const { type, body } = renderTranscript(routed.value, request.format);
      res.type(type).send(body);
    } catch (error) {
      routeFailed(error, res, attempts, deps.shutdown);
    }
  };
}
