/**
 * The floor a Node proxy can reach: a node:http server that pipes each request
 * to the upstream through a keep-alive agent and pipes the answer back.
 *
 *   PROXY_PORT, UPSTREAM (http://127.0.0.1:PORT)
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:9000');
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

const server = createServer((req, res) => {
  const forward = request(
    { host: upstream.hostname, port: upstream.port, path: '/chat/completions', method: req.method, headers: { 'content-type': 'application/json' }, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forward.on('error', () => res.destroy());
  res.on('close', () => {
    if (!res.writableFinished) forward.destroy();
  });
  req.pipe(forward);
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PROXY_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`proxy listening on ${(server.address() as AddressInfo).port}\n`);
});
