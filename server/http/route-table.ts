/**
 * Every route Freeway serves, each declared once: its method, its path (Express's
 * pattern), the handler that answers it, how its body is read, and what the
 * documentation says of it. Express mounting (server/app.ts), the 405 answers of a
 * path's other methods, the metrics' route labels, the request log's fixed paths,
 * the 404's hints and docs/apis.md's endpoint list (`npm run docs`) all come from
 * this table. Adding a route is one row here and its handler in server/app.ts.
 * A row's metric label and its name in the log is its `path`, a pattern that holds
 * no caller's data.
 */

/** The probes' handlers: http/probes.ts answers them ahead of every middleware. */
export type ProbeHandlerName = 'livez' | 'readyz';

/** The handlers a row can name; server/app.ts builds one of each (but the probes) at start-up. */
export type RouteHandlerName =
  | ProbeHandlerName
  | 'metrics'
  | 'health'
  | 'providers'
  | 'models.list'
  | 'models.retrieve'
  | 'gemini'
  | 'gemini.models.list'
  | 'gemini.models.get'
  | 'chat'
  | 'responses'
  | 'messages'
  | 'messages.countTokens'
  | 'embeddings'
  | 'transcriptions'
  | 'openapi'
  | 'console.page'
  | 'console.file';

/** The client APIs whose bodies the routes validate (each one JSON Schema). */
export type ClientApiName = 'chat' | 'responses' | 'messages' | 'gemini' | 'embeddings' | 'transcriptions';

export interface RouteRow {
  readonly method: 'GET' | 'POST';
  /** Express's pattern: `*name` captures every remaining segment (model ids hold `/`). */
  readonly path: string;
  readonly handler: RouteHandlerName;
  /** How the body is read before the handler runs: JSON (BODY_LIMIT), or a multipart upload (AUDIO_MAX_BYTES). */
  readonly body?: 'json' | 'multipart';
  /** Google's `?key=` is read as `x-goog-api-key` before the handler (Gemini's routes). */
  readonly queryKey?: true;
  /**
   * A row that serves only some requests of its path and method; the rest go on to the next route
   * (`geminiV1`: Gemini's POSTs under /v1/models). Such a row is not named in its path's 405 `Allow`.
   */
  readonly only?: 'geminiV1';
  /** Mounted only with a setting: `console` (CONSOLE=on), `metrics` (METRICS_PORT unset), `probe` (ahead of every middleware). */
  readonly mount?: 'console' | 'metrics' | 'probe';
  /** The client API whose request body this route takes, when it takes one. */
  readonly api?: ClientApiName;
  /** One line, Markdown code spans allowed: what the route does (docs/apis.md's endpoint list). */
  readonly summary: string;
  /** The path as documentation writes it, when not `path` with `{name}` for `*name`. */
  readonly documentedPath?: string;
  /** The page of docs/ that tells more (`responses.md`, `gemini.md#models`). */
  readonly see?: string;
}

const wildcard = /\*\w+$/;

/** In mounting order: a row with `only` comes before the row its other requests fall to. */
export const routeTable: readonly RouteRow[] = [
  { method: 'GET', path: '/livez', handler: 'livez', mount: 'probe', summary: 'Liveness probe: 200 while the process serves', see: 'console.md#get-livez-and-get-readyz' },
  { method: 'GET', path: '/readyz', handler: 'readyz', mount: 'probe', summary: 'Readiness probe: 503 while starting or shutting down, 200 `degraded` without Redis', see: 'console.md#get-livez-and-get-readyz' },
  { method: 'GET', path: '/metrics', handler: 'metrics', mount: 'metrics', summary: 'Prometheus metrics (on METRICS_PORT instead when it is set)', see: 'operations.md' },
  { method: 'GET', path: '/health', handler: 'health', summary: '`{status: "ok", providers}`: health of the providers whose key headers you sent, and only those' },
  {
    method: 'GET',
    path: '/v1/providers',
    handler: 'providers',
    summary: "Every provider (key console URL, tier, aliases, model count) and, for the keys you send, each key's state, quota and what it can use now; `?check=1` checks the keys with the providers",
    see: 'console.md',
  },
  { method: 'GET', path: '/v1/models', handler: 'models.list', summary: "The chat aliases, `free:embed` and `free:transcribe`, and every concrete model (`object: list`); Anthropic's list with an `anthropic-version` header", see: 'models.md' },
  { method: 'GET', path: '/v1/models/*id', handler: 'models.retrieve', summary: "One model object (ids may contain `/`, `@` and `:`); Anthropic's with `anthropic-version`", see: 'models.md' },
  {
    method: 'POST',
    path: '/v1/models/*name',
    handler: 'gemini',
    only: 'geminiV1',
    queryKey: true,
    body: 'json',
    api: 'gemini',
    documentedPath: '/v1/models/{model}:{method}',
    summary: "Gemini's API under /v1, as `@google/genai` 3.x calls it: the same methods as under /v1beta",
    see: 'gemini.md',
  },
  { method: 'GET', path: '/v1beta/models', handler: 'gemini.models.list', queryKey: true, summary: "Gemini's model list, in Google's shape", see: 'gemini.md#models' },
  { method: 'GET', path: '/v1beta/models/*name', handler: 'gemini.models.get', queryKey: true, documentedPath: '/v1beta/models/{model}', summary: "One Gemini model, in Google's shape", see: 'gemini.md#models' },
  {
    method: 'POST',
    path: '/v1beta/models/*name',
    handler: 'gemini',
    queryKey: true,
    body: 'json',
    api: 'gemini',
    documentedPath: '/v1beta/models/{model}:{method}',
    summary: "Gemini's API: `generateContent`, `streamGenerateContent`, `countTokens`, `embedContent`, `batchEmbedContents`",
    see: 'gemini.md',
  },
  { method: 'POST', path: '/v1/chat/completions', handler: 'chat', body: 'json', api: 'chat', summary: 'OpenAI chat completion, streaming or not' },
  { method: 'POST', path: '/v1/responses', handler: 'responses', body: 'json', api: 'responses', summary: 'OpenAI Responses API, stateless, streaming or not', see: 'responses.md' },
  { method: 'POST', path: '/v1/messages', handler: 'messages', body: 'json', api: 'messages', summary: 'Anthropic Messages API, streaming or not', see: 'messages.md' },
  { method: 'POST', path: '/v1/messages/count_tokens', handler: 'messages.countTokens', body: 'json', api: 'messages', summary: "Anthropic's token count, estimated without calling a provider", see: 'messages.md' },
  {
    method: 'POST',
    path: '/v1/embeddings',
    handler: 'embeddings',
    body: 'json',
    api: 'embeddings',
    summary: 'OpenAI embeddings; failover only between deployments of one model family',
    see: 'embeddings-and-transcription.md',
  },
  {
    method: 'POST',
    path: '/v1/audio/transcriptions',
    handler: 'transcriptions',
    body: 'multipart',
    api: 'transcriptions',
    summary: 'OpenAI transcription (Whisper), multipart, all five `response_format`s',
    see: 'embeddings-and-transcription.md',
  },
  { method: 'GET', path: '/openapi.json', handler: 'openapi', summary: 'This API as an OpenAPI 3.1 document: every route, and the JSON Schemas that request bodies are checked against' },
  { method: 'GET', path: '/', handler: 'console.page', mount: 'console', summary: 'The web console (`CONSOLE=off` removes it)', see: 'console.md' },
  { method: 'GET', path: '/console/*file', handler: 'console.file', mount: 'console', documentedPath: '/console/{file}', summary: "The console's script, style and icon", see: 'console.md' },
];

/** The prefixes Freeway's client APIs live under: CORS, the rate limit and anonymous access apply there. */
export const apiPrefixes = ['/v1', '/v1beta'] as const;

/** Where Anthropic's error shape applies (all of the Messages API's paths, and the models' to a client that speaks it), and Google's (all of /v1beta, and its calls under the models' path). */
export const errorShapePrefixes = { messages: pathOf('messages'), models: pathOf('models.list'), gemini: apiPrefixes[1] } as const;


/** A path's rows' 405: the methods it allows, each route but those serving only some requests. */
export interface PathMethods {
  readonly path: string;
  readonly allow: string;
}

/** One entry per path that answers 405 to its other methods, after every route of the table is mounted. */
export function methodsByPath(rows: readonly RouteRow[]): PathMethods[] {
  const byShape = new Map<string, { path: string; methods: Set<string> }>();
  for (const row of rows) {
    if (row.mount === 'console' || row.mount === 'probe') continue;
    const shape = row.path.replace(wildcard, '*');
    let entry = byShape.get(shape);
    if (!entry) byShape.set(shape, (entry = { path: row.path, methods: new Set() }));
    if (row.only !== undefined) continue;
    if (row.method === 'GET') entry.methods.add('GET').add('HEAD');
    else entry.methods.add(row.method);
  }
  const order = ['GET', 'HEAD', 'POST'];
  return [...byShape.values()].map(({ path, methods }) => ({ path, allow: order.filter((method) => methods.has(method)).join(', ') }));
}

/** The wildcard routes as the prefix before their `*` and the pattern that names them, first row first. */
const wildcardLabels: ReadonlyArray<readonly [prefix: string, label: string]> = (() => {
  const labels = new Map<string, string>();
  for (const row of routeTable) {
    const prefix = wildcardPrefix(row);
    if (prefix !== row.path && !labels.has(prefix)) labels.set(prefix, row.path);
  }
  return [...labels];
})();

/** The fixed paths (no wildcard) of the table, but the console's page. */
export const fixedPaths: ReadonlySet<string> = new Set(routeTable.filter((row) => !wildcard.test(row.path) && row.path !== '/').map((row) => row.path));

/**
 * The route a path (without its query) is, for a request no route ran for (the rate limit
 * answered, a preflight): a fixed path as it is, a wildcard route's path by its pattern
 * (`/v1beta/models/x:generateContent` is `/v1beta/models/*name`); undefined for any other,
 * which a caller made up. Metrics label by it, and the request log shows it unredacted.
 */
export function routeOfPath(path: string): string | undefined {
  if (fixedPaths.has(path)) return path;
  for (const [prefix, label] of wildcardLabels) if (path.startsWith(prefix)) return label;
  return undefined;
}

/** What a wildcard row's path holds before its `*`: `/v1/models/` of `/v1/models/*id`. */
export function wildcardPrefix(row: RouteRow): string {
  const match = wildcard.exec(row.path);
  return match === null ? row.path : row.path.slice(0, match.index);
}

/** The row that serves only some requests of its path (`geminiV1`). */
export function onlyRow(only: NonNullable<RouteRow['only']>): RouteRow {
  const row = routeTable.find((candidate) => candidate.only === only);
  if (row === undefined) throw new Error(`no route serves only ${only}`);
  return row;
}

/** The table's path for one handler (the first row naming it). */
export function pathOf(handler: RouteHandlerName): string {
  const row = routeTable.find((candidate) => candidate.handler === handler);
  if (row === undefined) throw new Error(`no route names the handler ${handler}`);
  return row.path;
}
