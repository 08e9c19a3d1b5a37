/**
 * Portkey's AI gateway (`@portkey-ai/gateway`, a dev dependency) as a bench
 * target: its own Node server (`build/start-server.js`, Hono on
 * @hono/node-server), bound to 127.0.0.1 instead of every interface, with its
 * start-up banner and spinner kept off the bench's output.
 *
 * The gateway takes its upstream from each request's headers: the bench sends
 * `x-portkey-provider: openai` and `x-portkey-custom-host: <mock>` (127.0.0.1
 * is among its trusted custom hosts), with the key as `Authorization`.
 *
 *   PROXY_PORT
 */
import { Server } from 'node:net';
import { createRequire } from 'node:module';

const port = process.env.PROXY_PORT ?? '8787';
const listen = Server.prototype.listen;
// The gateway calls server.listen(port, undefined, callback): every interface. The bench talks only to 127.0.0.1.
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  if (typeof args[0] === 'number' && (args[1] === undefined || typeof args[1] === 'function')) args[1] = '127.0.0.1';
  return (listen as (...a: unknown[]) => Server).apply(this, args);
} as typeof Server.prototype.listen;
console.clear = () => {};
console.log = () => {};
process.stdout.write = (() => true) as typeof process.stdout.write;
process.argv = [process.argv[0] as string, 'portkey-gateway', `--port=${port}`, '--headless'];
await import(createRequire(import.meta.url).resolve('@portkey-ai/gateway/build/start-server.js'));
