import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small OTLP/HTTP trace receiver on 127.0.0.1, as a collector is to Freeway: it takes
 * `POST /v1/traces` in OTLP/JSON or OTLP/protobuf, and keeps every span it was sent.
 */

export type AttributeValue = string | number | boolean | AttributeValue[];

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  /** The resource's attributes (service.name, process.pid). */
  readonly resource: Readonly<Record<string, AttributeValue>>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Every body received, as text (protobuf decoded to its strings): what a leak check reads. */
  readonly bodies: string[];
  /** The content types of the exports received. */
  readonly contentTypes: string[];
  /** Resolves once `test` holds of the spans received; rejects after `timeoutMs`. */
  waitFor(test: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface JsonValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonValue[] };
}

interface JsonKeyValue {
  key: string;
  value: JsonValue;
}

const jsonValue = (value: JsonValue): AttributeValue =>
  value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? (value.arrayValue?.values ?? []).map(jsonValue);

const jsonAttributes = (list: JsonKeyValue[] | undefined): Record<string, AttributeValue> => Object.fromEntries((list ?? []).map(({ key, value }) => [key, jsonValue(value)]));

function fromJson(text: string): ReceivedSpan[] {
  const body = JSON.parse(text) as { resourceSpans: Array<{ resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: Array<{ spans?: Array<Record<string, any>> }> }> };
  return body.resourceSpans.flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: String(span.traceId),
        spanId: String(span.spanId),
        parentSpanId: String(span.parentSpanId ?? ''),
        name: String(span.name),
        kind: Number(span.kind),
        attributes: jsonAttributes(span.attributes),
        status: { code: Number(span.status?.code ?? 0), message: String(span.status?.message ?? '') },
        resource: jsonAttributes(resourceSpans.resource?.attributes),
      })),
    ),
  );
}

/** One protobuf message's fields: field number -> its values (varints and fixed as bigint, length-delimited as bytes). */
type Fields = Map<number, Array<bigint | Buffer>>;

function varint(buffer: Buffer, at: { pos: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buffer[at.pos++] as number;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

/** The protobuf wire format, read without a schema (the schema is in how the fields are read below). */
function fields(buffer: Buffer): Fields {
  const found: Fields = new Map();
  const at = { pos: 0 };
  while (at.pos < buffer.length) {
    const tag = Number(varint(buffer, at));
    const [field, wire] = [tag >>> 3, tag & 7];
    let value: bigint | Buffer;
    if (wire === 0) value = varint(buffer, at);
    else if (wire === 1) value = buffer.subarray(at.pos, (at.pos += 8));
    else if (wire === 5) value = buffer.subarray(at.pos, (at.pos += 4));
    else if (wire === 2) {
      const length = Number(varint(buffer, at));
      value = buffer.subarray(at.pos, (at.pos += length));
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
    found.set(field, [...(found.get(field) ?? []), value]);
  }
  return found;
}

const bytesOf = (message: Fields, field: number): Buffer[] => (message.get(field) ?? []) as Buffer[];
const first = (message: Fields, field: number): Buffer | undefined => bytesOf(message, field)[0];
const text = (message: Fields, field: number): string => first(message, field)?.toString('utf8') ?? '';
const hex = (message: Fields, field: number): string => first(message, field)?.toString('hex') ?? '';
const number = (message: Fields, field: number): number => Number((message.get(field)?.[0] as bigint | undefined) ?? 0n);

/** AnyValue: 1 string, 2 bool, 3 int, 4 double, 5 array. */
function protoValue(message: Fields): AttributeValue {
  if (message.has(1)) return text(message, 1);
  if (message.has(2)) return number(message, 2) === 1;
  if (message.has(3)) return number(message, 3);
  if (message.has(4)) return (first(message, 4) as Buffer).readDoubleLE(0);
  const array = first(message, 5);
  return array === undefined ? '' : bytesOf(fields(array), 1).map((value) => protoValue(fields(value)));
}

/** KeyValue: 1 key, 2 value. */
const protoAttributes = (list: Buffer[]): Record<string, AttributeValue> =>
  Object.fromEntries(list.map((raw) => fields(raw)).map((pair) => [text(pair, 1), protoValue(fields(first(pair, 2) ?? Buffer.alloc(0)))]));

/** ExportTraceServiceRequest -> ResourceSpans (1) -> resource (1), ScopeSpans (2) -> Span (2). */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return bytesOf(fields(body), 1).flatMap((raw) => {
    const resourceSpans = fields(raw);
    const resource = protoAttributes(bytesOf(fields(first(resourceSpans, 1) ?? Buffer.alloc(0)), 1));
    return bytesOf(resourceSpans, 2).flatMap((scope) =>
      bytesOf(fields(scope), 2).map((spanBytes) => {
        const span = fields(spanBytes);
        const status = fields(first(span, 15) ?? Buffer.alloc(0));
        return {
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          name: text(span, 5),
          kind: number(span, 6),
          attributes: protoAttributes(bytesOf(span, 9)),
          status: { code: number(status, 3), message: text(status, 2) },
          resource,
        };
      }),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const type = String(req.headers['content-type'] ?? '');
    contentTypes.push(type);
    const received = type.includes('json') ? fromJson(body.toString('utf8')) : fromProtobuf(body);
    spans.push(...received);
    bodies.push(type.includes('json') ? body.toString('utf8') : JSON.stringify(received));
    res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' });
    res.end(type.includes('json') ? '{}' : '');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    contentTypes,
    async waitFor(test, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!test(spans)) {
        if (Date.now() > deadline) throw new Error(`the receiver did not get the spans awaited within ${timeoutMs} ms; it got: ${JSON.stringify(spans, null, 1)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
