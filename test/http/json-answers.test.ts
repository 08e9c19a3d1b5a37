import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { hello, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

/** JSON answers as a client reads them: type, length and body, whichever way the app writes them. */
describe('JSON answers', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  before(async () => {
    upstream = await startUpstream((req, res) => openAIText(res, 'Grüße, 世界 👋', req));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url } });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  it('sends a completion as UTF-8 JSON whose Content-Length counts bytes, not characters', async () => {
    const res = await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), keyHeaders('groq'));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).to.equal(Buffer.byteLength(res.text)).and.be.greaterThan(res.text.length);
    expect(res.json.choices[0].message.content).to.equal('Grüße, 世界 👋');
    expect(res.headers.get('x-freeway-provider')).to.equal('groq');
  });

  it('answers HEAD with the length of the JSON it leaves out', async () => {
    const get = await fetch(`${freeway.url}/v1/models`);
    const text = await get.text();
    const head = await fetch(`${freeway.url}/v1/models`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(Number(head.headers.get('content-length'))).to.equal(Buffer.byteLength(text));
    expect(await head.text()).to.equal('');
  });

  it('answers a conditional GET in full: Freeway sends no ETag to match', async () => {
    const res = await fetch(`${freeway.url}/v1/models`, { headers: { 'If-None-Match': '"anything"', 'If-Modified-Since': new Date().toUTCString() } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('etag')).to.equal(null);
    expect(((await res.json()) as { object: string }).object).to.equal('list');
  });

  it('writes errors as JSON of the same type and length', async () => {
    const res = await postChat(freeway.url, { model: 'groq/llama-3.3-70b-versatile', messages: 'not a list' }, keyHeaders('groq'));
    expect(res.status).to.equal(400);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).to.equal(Buffer.byteLength(res.text));
    expect(res.json.error.type).to.equal('invalid_request_error');
    expect(res.json.error.message).to.match(/^Validation failed: messages/);
  });
});
