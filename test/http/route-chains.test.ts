import { expect } from 'chai';
import express, { type RequestHandler } from 'express';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mountOnExpress, routeChains, type MountedApp } from '../../server/http/route-chains.ts';
import { routeTable, type RouteRow } from '../../server/http/route-table.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders } from '../support/keys.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

/**
 * A POST to a fixed path of the route table runs the chain compiled for it; the same request with
 * a query string, or any other, goes through Express's router. Both must answer alike: same status,
 * headers, body, log line and metrics label.
 */

/** The POST rows with a fixed path: the ones served by a compiled chain. */
const fixedPostRows = routeTable.filter((row) => row.method === 'POST' && !row.path.includes('*') && row.only === undefined);

/** Header names of an answer, but those that differ from one request to the next. */
const headerNames = (response: Response): string[] =>
  [...response.headers.keys()].filter((name) => !['date', 'x-request-id', 'content-length', 'x-freeway-attempts'].includes(name)).sort();

/** A body with what differs from one request to the next (ids, times) taken out. */
function comparable(text: string): unknown {
  try {
    return JSON.parse(text.replace(/"(id|created|created_at|request_id)":("[^"]*"|\d+)/g, '"$1":"*"').replace(/req_[A-Za-z0-9-]+/g, 'req_*'));
  } catch {
    return text;
  }
}

interface Answer {
  readonly status: number;
  readonly headers: string[];
  readonly body: unknown;
}

async function post(freeway: RunningFreeway, path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.status, headers: headerNames(response), body: comparable(await response.text()) };
}

/** The log line of the last request to `path`, without its time and request id. */
async function lastLine(freeway: RunningFreeway, method: string, path: string): Promise<Record<string, unknown>> {
  const line = await freeway.logged(new RegExp(`^${`${method} ${path} `.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  const { time: _time, reqId: _reqId, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
  return { ...rest, msg: String(msg).replace(/ \d+ms$/, '') };
}

describe('route chains: a fixed POST route answers alike through its compiled chain and through Express', () => {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async () => {
    upstream = await startUpstream((req, res) => openAIText(res, 'Hello there', req));
    freeway = await startFreeway({ env: { CEREBRAS_BASE_URL: upstream.url } });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  for (const row of fixedPostRows) {
    it(`POST ${row.path}: a body that fails validation gets the same answer and log line both ways`, async () => {
      const headers = { ...keyHeaders('cerebras'), 'anthropic-version': '2023-06-01' };
      const body = row.body === 'multipart' ? '{}' : JSON.stringify({ model: 42 });
      const chained = await post(freeway, row.path, body, headers);
      const chainedLine = await lastLine(freeway, 'POST', row.path);
      const routed = await post(freeway, `${row.path}?via=express`, body, headers);
      const routedLine = await lastLine(freeway, 'POST', `${row.path}?via=express`);
      expect(chained.status).to.be.within(400, 499);
      expect(routed).to.deep.equal(chained);
      expect({ ...routedLine, msg: String(routedLine.msg).replace('?via=express', '') }).to.deep.equal(chainedLine);
    });
  }

  it('a chat completion gets the same answer both ways, and both count under the route in the metrics', async () => {
    const body = JSON.stringify({ model: 'cerebras/llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }] });
    const chained = await post(freeway, '/v1/chat/completions', body, keyHeaders('cerebras'));
    const routed = await post(freeway, '/v1/chat/completions?via=express', body, keyHeaders('cerebras'));
    expect(chained.status).to.equal(200);
    expect(routed).to.deep.equal(chained);
    const metrics = await (await fetch(`${freeway.url}/metrics`)).text();
    expect(metrics).to.include('freeway_http_requests_total{route="/v1/chat/completions",status="200"} 2');
    expect(metrics).to.not.include('via=express');
  });

  it('the other methods of a fixed path still get its 405 with Allow, from Express', async () => {
    const response = await fetch(`${freeway.url}/v1/chat/completions`);
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.equal('POST');
    const error = ((await response.json()) as { error: { type: string; message: string } }).error;
    expect(error.type).to.equal('invalid_request_error');
    expect(error.message).to.match(/GET .*\/v1\/chat\/completions/);
  });
});

describe('route chains: what a chain runs, in order', () => {
  /** A handler that notes its name on the answer's trail and goes on. */
  const step = (name: string): RequestHandler => (_req, res, next) => {
    res.locals.trail = [...((res.locals.trail as string[] | undefined) ?? []), name];
    next();
  };
  const answer: RequestHandler = (req, res) => {
    res.json({ trail: [...(res.locals.trail as string[]), 'handler'], route: (req.route as { path: string }).path });
  };
  const row = (method: 'GET' | 'POST', path: string, only?: 'geminiV1'): RouteRow => ({ method, path, handler: 'chat', summary: '', only });

  /** Serves `mounted`; `viaExpress` lists the URLs that Express's app handled. */
  async function serve(mounted: MountedApp): Promise<{ url: string; viaExpress: string[]; close(): void }> {
    const app = express();
    mountOnExpress(app, mounted);
    const viaExpress: string[] = [];
    // Express's app calls its `handle` with every request it is given.
    const dispatch = app as unknown as { handle(req: IncomingMessage, res: ServerResponse, next?: unknown): void };
    const handle = dispatch.handle.bind(app);
    dispatch.handle = (req, res, next) => {
      viaExpress.push(req.url ?? '');
      handle(req, res, next);
    };
    const server = createServer(routeChains(app, mounted));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, viaExpress, close: () => server.close() };
  }

  const errorHandler: MountedApp['errorHandler'] = (error, _req, res, _next) => {
    res.status(500).json({ trail: res.locals.trail ?? [], error: error instanceof Error ? error.message : String(error) });
  };
  const unknownRoute: RequestHandler = (_req, res) => {
    res.status(404).json({ trail: res.locals.trail ?? [], error: 'unknown route' });
  };

  it('runs the middlewares of its prefixes in mounting order, then its handlers, as Express does for the same path', async () => {
    const mounted: MountedApp = {
      middlewares: [{ handler: step('all') }, { prefixes: ['/v1'], handler: step('v1') }, { prefixes: ['/v1/other'], handler: step('other') }, { prefixes: ['/v1/a'], handler: step('a') }],
      routes: [{ row: row('POST', '/v1/a'), handlers: [step('reader'), answer] }],
      pathEnds: [],
      unknownRoute,
      errorHandler,
    };
    const server = await serve(mounted);
    try {
      for (const path of ['/v1/a', '/v1/a?via=express']) {
        const response = await fetch(`${server.url}${path}`, { method: 'POST' });
        expect(await response.json(), path).to.deep.equal({ trail: ['all', 'v1', 'a', 'reader', 'handler'], route: '/v1/a' });
      }
      expect(server.viaExpress).to.deep.equal(['/v1/a?via=express']);
    } finally {
      server.close();
    }
  });

  it("sends a handler's thrown error and rejected promise to the error handler, and a handler that goes on to the path's 405 and the unknown route", async () => {
    const fail: RequestHandler = () => {
      throw new Error('thrown');
    };
    const reject: RequestHandler = async () => {
      await Promise.resolve();
      throw new Error('rejected');
    };
    const mounted: MountedApp = {
      middlewares: [{ handler: step('all') }],
      routes: [
        { row: row('POST', '/throws'), handlers: [fail] },
        { row: row('POST', '/rejects'), handlers: [reject] },
        { row: row('POST', '/passes'), handlers: [step('passes')] },
        { row: row('POST', '/skips'), handlers: [(_req, _res, next) => next('route'), answer] },
      ],
      pathEnds: [{ path: '/passes', handler: step('405') }],
      unknownRoute,
      errorHandler,
    };
    const server = await serve(mounted);
    try {
      for (const suffix of ['', '?via=express']) {
        const post = async (path: string): Promise<unknown> => (await fetch(`${server.url}${path}${suffix}`, { method: 'POST' })).json();
        expect(await post('/throws'), suffix).to.deep.equal({ trail: ['all'], error: 'thrown' });
        expect(await post('/rejects'), suffix).to.deep.equal({ trail: ['all'], error: 'rejected' });
        expect(await post('/passes'), suffix).to.deep.equal({ trail: ['all', 'passes', '405'], error: 'unknown route' });
        expect(await post('/skips'), suffix).to.deep.equal({ trail: ['all'], error: 'unknown route' });
      }
    } finally {
      server.close();
    }
  });

  it('leaves to Express a path that an earlier row with a wildcard or a guard may serve', async () => {
    const guarded: RequestHandler = (req, res, next) => (req.headers['x-take'] ? res.json({ trail: ['guarded'] }) : next('route'));
    const mounted: MountedApp = {
      middlewares: [],
      routes: [
        { row: row('POST', '/v1/models/*name', 'geminiV1'), handlers: [guarded] },
        { row: row('POST', '/v1/models/fixed'), handlers: [answer] },
      ],
      pathEnds: [],
      unknownRoute,
      errorHandler,
    };
    const server = await serve(mounted);
    try {
      const taken = await fetch(`${server.url}/v1/models/fixed`, { method: 'POST', headers: { 'x-take': '1' } });
      expect(await taken.json()).to.deep.equal({ trail: ['guarded'] });
      expect(server.viaExpress).to.deep.equal(['/v1/models/fixed']);
    } finally {
      server.close();
    }
  });
});
