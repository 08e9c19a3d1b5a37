/**
 * `GET /v1/models` with a key lists what that key can serve, and an alias the keys cannot serve says
 * so, with the same words as the request that asks for it; as a new user with one Groq key meets it.
 */
import { expect } from 'chai';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { hello } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { json, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

interface Listed {
  id: string;
  available?: boolean;
  reason?: string;
}

describe('GET /v1/models with one Groq key', function () {
  this.timeout(30_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async () => {
    // Groq's live list of this key: one chat model and whisper-large-v3, without whisper-large-v3-turbo.
    upstream = await startUpstream((req, res) => {
      if (req.method === 'GET' && req.path === '/models') {
        return json(res, 200, { object: 'list', data: [{ id: 'openai/gpt-oss-120b', object: 'model', active: true, context_window: 131072 }, { id: 'whisper-large-v3', object: 'model', active: true }] });
      }
      return openAIText(res, 'Hello', req);
    });
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url, MODELS_LIVE: 'on' } });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  const list = async (): Promise<Listed[]> => ((await (await fetch(`${freeway.url}/v1/models`, { headers: keyHeaders('groq') })).json()) as { data: Listed[] }).data;

  it('free:vision is listed unavailable, with why and whose keys would serve it; free:auto is available', async () => {
    const models = await list();
    const vision = models.find((model) => model.id === 'free:vision');
    expect(vision?.available).to.equal(false);
    expect(vision?.reason).to.match(/^no model of the request's keys serves it; keys of X-[A-Z][a-z]+-Key(, X-[A-Z][a-z]+-Key)* do$/);
    expect(vision?.reason).to.not.include('X-Groq-Key');
    expect(models.find((model) => model.id === 'free:auto')?.available).to.not.equal(false);
  });

  it('asking for free:vision is a 400 saying the keys have no model that takes images, and whose do', async () => {
    const res = await fetch(`${freeway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...keyHeaders('groq') }, body: JSON.stringify(hello('free:vision')) });
    const reply = await expectError(res, 400, 'invalid_request_error');
    expect(reply.message).to.match(/^Your keys \(X-Groq-Key\) have no model for free:vision that takes images; keys of X-[A-Z][a-z]+-Key(, X-[A-Z][a-z]+-Key)* do\.$/);
  });

  it('a transcription model missing from the key\'s live list is listed unavailable, as chat models are', async () => {
    const models = await list();
    expect(models.find((model) => model.id === 'groq/whisper-large-v3-turbo')).to.deep.include({ available: false, reason: "not in the live model list of the request's keys" });
    expect(models.find((model) => model.id === 'groq/whisper-large-v3')?.available).to.equal(true);
  });

  it('free:transcribe does not send audio to the transcription model missing from the key\'s live list', async () => {
    const form = new FormData();
    form.append('model', 'free:transcribe');
    form.append('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'a.wav');
    const before = upstream.requests.length;
    const res = await fetch(`${freeway.url}/v1/audio/transcriptions`, { method: 'POST', headers: keyHeaders('groq'), body: form });
    const text = await res.text();
    expect(res.status, text).to.be.within(400, 599);
    expect(upstream.requests.slice(before).filter((request) => request.path.includes('/audio/transcriptions')), text).to.deep.equal([]);
  });
});
