import { expect } from 'chai';
import OpenAI, { APIError } from 'openai';
import { startFreeway, type RunningFreeway } from './freeway.ts';
import { openAIText, startUpstream, type FakeUpstream, type UpstreamHandler } from './upstream.ts';

export interface OneUpstreamSuite {
  readonly upstream: FakeUpstream;
  readonly freeway: RunningFreeway;
}

/**
 * For a describe block: one fake upstream behind the base URLs of `providers`
 * and a Freeway in front of it, started before its tests and closed after;
 * before each test the upstream forgets what it saw and answers with `answer`
 * (a short text, by default).
 */
export function freewayOverOneUpstream(
  providers: readonly string[],
  answer: UpstreamHandler = (req, res) => openAIText(res, 'Hello there friend', req),
): OneUpstreamSuite {
  const suite = {} as { upstream: FakeUpstream; freeway: RunningFreeway };
  before(async function () {
    suite.upstream = await startUpstream();
    const env: Record<string, string> = {};
    for (const provider of providers) env[`${provider.toUpperCase()}_BASE_URL`] = suite.upstream.url;
    suite.freeway = await startFreeway({ env });
  });
  after(async function () {
    await suite.freeway.close();
    await suite.upstream.close();
  });
  beforeEach(function () {
    suite.upstream.requests.length = 0;
    suite.upstream.handle(answer);
  });
  return suite;
}

/** Runs `call`, which must fail, and returns the openai SDK's error. */
export async function rejection(call: () => Promise<unknown>): Promise<APIError> {
  try {
    await call();
  } catch (error) {
    expect(error).to.be.instanceOf(APIError);
    return error as APIError;
  }
  throw new Error('expected the call to fail');
}

/** The openai SDK against Freeway, with provider keys as default headers; no retries, so that an error reaches the test once. */
export function openaiClient(freeway: RunningFreeway, headers: Record<string, string>): OpenAI {
  return new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'placeholder', defaultHeaders: headers, maxRetries: 0, timeout: 5000 });
}
