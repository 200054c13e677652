// A local web server for page-reading tests: routes answer with a page, a redirect, a huge or a
// stalled body; every request's headers are recorded (to show nothing private was forwarded).
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = (res: ServerResponse) => void;

export interface PageServer {
  url: (path: string) => string;
  port: number;
  requests: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startPageServer(routes: Record<string, Route>): Promise<PageServer> {
  const requests: PageServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers });
    const route = routes[path];
    if (route) route(res);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A route sending `bytes` of filler in 64 KB chunks, declared up front or chunked. */
export function hugeBody(bytes: number, declared: boolean): Route {
  return (res) => {
    res.writeHead(200, {
      'content-type': 'text/plain',
      ...(declared ? { 'content-length': String(bytes) } : {}),
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('error', () => {});
    pump();
  };
}

/** A route that sends its head and a first line, then never finishes the body. */
export const stalledBody: Route = (res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('the first line arrives, the rest never does\n');
};
