import type { RequestHandler } from 'express';
import type { Schema } from './schema-parts.ts';

/**
 * An OpenAPI 3.1 document of Freeway's own endpoints, built from a list of
 * routes and the JSON Schemas that check their bodies (each API's
 * `schema.ts`): the schemas that validate a request are the ones documented.
 * Served at `GET /openapi.json`.
 */

export type HttpMethod = 'get' | 'post';

/** One endpoint as the document describes it. */
export interface RouteDescriptor {
  readonly method: HttpMethod;
  /** OpenAPI's path template: `/v1beta/models/{model}:generateContent`. */
  readonly path: string;
  readonly summary: string;
  /** The client API or part of Freeway it belongs to (the document's tag). */
  readonly group: string;
  /** The JSON body's schema, named for components (`ChatCompletionRequest`), if the route takes one. */
  readonly request?: { readonly name: string; readonly schema: Schema };
  /** A multipart body's description (the transcription upload), for routes whose body is not JSON. */
  readonly multipart?: Schema;
  /** What a 200 answers. */
  readonly response: string;
  /** The media type of that answer when it is not JSON (`text/plain` for metrics, `text/html` for the console). */
  readonly responseType?: string;
}

export interface OpenApiDocument {
  readonly openapi: '3.1.1';
  readonly info: { readonly title: string; readonly version: string; readonly description: string; readonly license: { readonly name: string; readonly identifier: string } };
  readonly tags: ReadonlyArray<{ readonly name: string }>;
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: { readonly schemas: Record<string, Schema> };
}

const errorAnswer = {
  description:
    'An error: OpenAI\'s `{"error": {"message", "type", "code"}}` (a 400 reads `Validation failed: <field>: <detail>`), Anthropic\'s shape on the Messages API and Google\'s on the Gemini API.',
};

/** `{model}` and the like in a path template, as path parameters. */
function pathParameters(path: string): unknown[] {
  return Array.from(path.matchAll(/\{([^}]+)\}/g), ([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

/** `post` and `/v1/chat/completions` -> `postV1ChatCompletions`: unique, as one path has one operation per method. */
const operationId = (route: RouteDescriptor): string => route.method + route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase());

function operation(route: RouteDescriptor): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.group],
    responses: {
      200: { description: route.response, content: { [route.responseType ?? 'application/json']: {} } },
      default: errorAnswer,
    },
  };
  const parameters = pathParameters(route.path);
  if (parameters.length > 0) op.parameters = parameters;
  if (route.request) op.requestBody = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.request.name}` } } } };
  if (route.multipart) op.requestBody = { required: true, content: { 'multipart/form-data': { schema: route.multipart } } };
  return op;
}

/**
 * A body schema as a component of the document: its `$ref`s name its own
 * `$defs` (`#/$defs/message`), which in the document are under the component
 * (`#/components/schemas/ChatCompletionRequest/$defs/message`).
 */
function asComponent(schema: unknown, name: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => asComponent(item, name));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/') ? `#/components/schemas/${name}${value.slice(1)}` : asComponent(value, name),
    ]),
  );
}

/** The document for `routes`, each request schema once under components. */
export function openApiDocument(routes: readonly RouteDescriptor[], version = '1.0.0'): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, Schema> = {};
  const tags: string[] = [];
  routes.forEach((route) => {
    (paths[route.path] ??= {})[route.method] = operation(route);
    if (route.request) schemas[route.request.name] ??= asComponent(route.request.schema, route.request.name) as Schema;
    if (!tags.includes(route.group)) tags.push(route.group);
  });
  return {
    openapi: '3.1.1',
    info: {
      title: 'Freeway',
      version,
      description:
        'A stateless proxy that routes LLM requests across the free tiers of model providers with the keys the caller sends: one `X-<Provider>-Key` header per provider (docs/keys.md). Request bodies are checked against the schemas below; unknown fields are ignored.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: tags.map((name) => ({ name })),
    paths,
    components: { schemas },
  };
}

/** `GET /openapi.json`: the document of `routes`, built and serialized once. */
export function openApiRoute(routes: readonly RouteDescriptor[]): RequestHandler {
  const body = JSON.stringify(openApiDocument(routes));
  return (_req, res) => {
    res.type('application/json').send(body);
  };
}
