import { createServer, type Server } from 'node:http';
import type { RequestHandler } from 'express';
import { Registry } from 'prom-client';
import { pathOf } from './route-table.ts';

/** `GET /metrics`: the text a scrape function makes, in Prometheus's content type. */
export function metricsEndpoint(scrape: () => Promise<string>, contentType: string): RequestHandler {
  return async (_req, res) => {
    const text = await scrape();
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(text);
  };
}

/**
 * METRICS_PORT: `/metrics` on a listener of its own (METRICS_HOST, 127.0.0.1 by
 * default), so that it can stay off the public interface. Anything else there is a 404.
 */
export function listenForMetrics(
  scrape: () => Promise<string>,
  where: { readonly host: string; readonly port: number },
  onListening: (url: string) => void,
  onError: (error: unknown) => void,
): Server {
  const metricsPath = pathOf('metrics');
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== metricsPath || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`Only GET ${metricsPath} is served here.\n`);
      return;
    }
    scrape().then(
      (text) => res.writeHead(200, { 'Content-Type': Registry.PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(503, { 'Content-Type': 'text/plain' }).end('Metrics are not available right now.\n'),
    );
  });
  server.once('error', onError);
  server.listen(where.port, where.host, () => {
    server.off('error', onError);
    onListening(`http://${where.host}:${where.port}${metricsPath}`);
  });
  // Never holds a stopping process open.
  server.unref();
  return server;
}
