import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { hello, postChat } from '../support/http.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { openAIError, startUpstream, type FakeUpstream } from '../support/upstream.ts';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  reason?: string;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids and log levels', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  before(async () => {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url } });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  /** The log line of the request with this id, once it is written. */
  async function lineOf(id: string): Promise<LogLine> {
    const deadline = Date.now() + 2000;
    for (;;) {
      const line = freeway.logs.map((raw) => JSON.parse(raw) as LogLine).find((one) => one.reqId === id);
      if (line) return line;
      if (Date.now() > deadline) throw new Error(`no log line with reqId ${id}:\n${freeway.logs.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('makes an id when none is sent, returns it, and logs it', async () => {
    const res = await fetch(`${freeway.url}/health`);
    const id = res.headers.get('x-request-id') ?? '';
    expect(id).to.match(uuid);
    expect((await lineOf(id)).msg).to.match(/^GET \/health 200 \d+ms$/);
  });

  it('keeps the caller\'s X-Request-Id, on errors too', async () => {
    const sent = 'trace-42.abc:def/ghi@host+1=2';
    const res = await postChat(freeway.url, hello('groq/nope'), { 'X-Request-Id': sent, ...keyHeaders('groq') });
    expect(res.status).to.equal(404);
    expect(res.headers.get('x-request-id')).to.equal(sent);
    expect((await lineOf(sent)).msg).to.match(/^POST \/v1\/chat\/completions 404 \d+ms$/);
    const unknown = await fetch(`${freeway.url}/v1/nowhere`, { headers: { 'X-Request-Id': 'on-a-404' } });
    expect(unknown.status).to.equal(404);
    expect(unknown.headers.get('x-request-id')).to.equal('on-a-404');
  });

  it('cuts a long id to 128 characters, drops unsafe characters, and redacts keys in it', async () => {
    const long = await fetch(`${freeway.url}/health`, { headers: { 'X-Request-Id': 'a'.repeat(5000) } });
    expect(long.headers.get('x-request-id')).to.equal('a'.repeat(128));
    const unsafe = await fetch(`${freeway.url}/health`, { headers: { 'X-Request-Id': 'id"with <html> & \\ spaces' } });
    expect(unsafe.headers.get('x-request-id')).to.equal('idwithhtmlspaces');
    const nothingLeft = await fetch(`${freeway.url}/health`, { headers: { 'X-Request-Id': '<<>>' } });
    expect(nothingLeft.headers.get('x-request-id')).to.match(uuid);
    const keyed = await fetch(`${freeway.url}/health`, { headers: { 'X-Request-Id': `req-${testKeys.groq}` } });
    const id = keyed.headers.get('x-request-id') ?? '';
    expect(id).to.not.include(testKeys.groq);
    expect(id).to.include('REDACTED');
  });

  it('logs a 502 at warn with its reason; a success at info', async () => {
    upstream.handle((_req, res) => openAIError(res, 503, 'Service unavailable'));
    const failed = await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), { 'X-Request-Id': 'failing-one', ...keyHeaders('groq') });
    expect(failed.status).to.equal(502);
    const line = await lineOf('failing-one');
    expect(line.level).to.equal(40);
    expect(line.reason).to.equal(failed.json.error.message);
    expect(line.reason).to.match(/^Provider failed: groq: 503/);
    const ok = await fetch(`${freeway.url}/v1/models`, { headers: { 'X-Request-Id': 'fine-one' } });
    expect(ok.status).to.equal(200);
    const fine = await lineOf('fine-one');
    expect(fine.level).to.equal(30);
    expect(fine.reason).to.equal(undefined);
  });
});
