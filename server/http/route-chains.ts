import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { wildcardPrefix, type RouteRow } from './route-table.ts';

/**
 * The route table's fixed POST rows (chat completions, Responses, Messages, token counts,
 * embeddings, transcriptions), each compiled once into one chain: the middlewares Express runs
 * for that path, in its order, then the row's own handlers, its path's 405 and the unknown
 * route. Such a request runs its chain directly; Express's router would walk some 30 layers,
 * matching each against the path and trimming and restoring mount paths, to reach the same
 * handlers (3 to 7% of a chat completion's CPU in a parallel A/B, 6 rounds). Every other request
 * goes to Express.
 */

/** A middleware as the app mounts it: under these path prefixes, or every path when absent. */
export interface MountedMiddleware {
  readonly prefixes?: readonly string[];
  readonly handler: RequestHandler;
}

/** A row of the route table as mounted, with its handlers in order. */
export interface MountedRoute {
  readonly row: RouteRow;
  readonly handlers: readonly RequestHandler[];
}

/** Everything the app mounts, in Express's order. */
export interface MountedApp {
  readonly middlewares: readonly MountedMiddleware[];
  readonly routes: readonly MountedRoute[];
  /** After every route: each path's answer to its other methods (405). */
  readonly pathEnds: ReadonlyArray<{ readonly path: string; readonly handler: RequestHandler }>;
  /** After those: the 404 of a path no route serves. */
  readonly unknownRoute: RequestHandler;
  readonly errorHandler: ErrorRequestHandler;
}

interface Chain {
  readonly handlers: readonly RequestHandler[];
  /** Where the handlers after the route begin, for `next('route')`. */
  readonly routeEnd: number;
  /** What `req.route` is for the logs and metrics: the row's pattern. */
  readonly route: { readonly path: string };
}

/** Mounts everything on Express, in order: what serves every request the chains do not. */
export function mountOnExpress(app: Express, mounted: MountedApp): void {
  for (const { prefixes, handler } of mounted.middlewares) {
    if (prefixes === undefined) app.use(handler);
    else app.use([...prefixes], handler);
  }
  for (const { row, handlers } of mounted.routes) {
    if (row.method === 'GET') app.get(row.path, ...handlers);
    else app.post(row.path, ...handlers);
  }
  for (const { path, handler } of mounted.pathEnds) app.all(path, handler);
  app.use(mounted.unknownRoute);
  app.use(mounted.errorHandler);
}

/** Whether Express mounts a middleware of `prefix` over `path` (both fixed, lower case). */
const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

/** The POST rows with a fixed path that no earlier POST row's pattern covers: each is the only route of its path and method. */
function fixedPostRoutes(routes: readonly MountedRoute[]): MountedRoute[] {
  const fixed: MountedRoute[] = [];
  const covered: string[] = [];
  for (const route of routes) {
    const { method, path, only } = route.row;
    if (method !== 'POST') continue;
    const prefix = wildcardPrefix(route.row);
    if (prefix !== path || only !== undefined || path.includes(':')) covered.push(prefix);
    else if (!covered.some((earlier) => path.startsWith(earlier))) fixed.push(route);
  }
  return fixed;
}

function compile(mounted: MountedApp, route: MountedRoute): Chain {
  const { path } = route.row;
  const before = mounted.middlewares.filter(({ prefixes }) => prefixes === undefined || prefixes.some((prefix) => under(path, prefix))).map(({ handler }) => handler);
  const ends = mounted.pathEnds.filter((end) => end.path === path).map((end) => end.handler);
  return { handlers: [...before, ...route.handlers, ...ends, mounted.unknownRoute], routeEnd: before.length + route.handlers.length, route: { path } };
}

/** What Express's last handler does when the error handler itself fails. */
function lastResort(res: Response): void {
  if (res.headersSent) res.destroy();
  else res.status(500).end();
}

/** What a chain runs in: the app whose request and response it serves, and where errors go. */
interface Runner {
  readonly app: Express;
  readonly errorHandler: ErrorRequestHandler;
}

/** Runs a chain as Express's router runs a route's layers: a thrown error or a rejected promise goes to the error handler. */
function run({ app, errorHandler }: Runner, chain: Chain, req: Request, res: Response): void {
  // What Express's app and router set on each request before its first handler.
  if (Object.getPrototypeOf(req) !== app.request) Object.setPrototypeOf(req, app.request);
  if (Object.getPrototypeOf(res) !== app.response) Object.setPrototypeOf(res, app.response);
  req.res = res;
  res.req = req;
  if (!res.locals) res.locals = Object.create(null) as Response['locals'];
  req.originalUrl = req.url;
  req.baseUrl = '';
  req.params = {};
  req.route = chain.route;
  let at = 0;
  const fail = (error: unknown): void => {
    try {
      errorHandler(error, req, res, () => lastResort(res));
    } catch {
      lastResort(res);
    }
  };
  const next: NextFunction = (error?: unknown) => {
    if (error === 'route' || error === 'router') at = Math.max(at, chain.routeEnd);
    else if (error) {
      fail(error);
      return;
    }
    const handler = chain.handlers[at++] as RequestHandler;
    try {
      const result: unknown = handler(req, res, next);
      if (result instanceof Promise) result.then(undefined, (rejected: unknown) => next(rejected || new Error('Rejected promise')));
    } catch (thrown) {
      next(thrown);
    }
  };
  req.next = next;
  next();
}

/**
 * The server's request listener: a fixed POST row's request runs its chain, any other goes to Express.
 * It carries the app's request and response prototypes, which the server builds its objects with (http/server.ts).
 */
export function routeChains(app: Express, mounted: MountedApp): RequestListener & Pick<Express, 'request' | 'response'> {
  const chains = new Map<string, Chain>();
  for (const route of fixedPostRoutes(mounted.routes)) chains.set(route.row.path, compile(mounted, route));
  const runner: Runner = { app, errorHandler: mounted.errorHandler };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const chain = req.method === 'POST' ? chains.get(req.url as string) : undefined;
    if (chain === undefined) app(req, res);
    else run(runner, chain, req as Request, res as Response);
  };
  return Object.assign(listener, { request: app.request, response: app.response });
}
