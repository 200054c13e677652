// A SearXNG instance as its JSON API answers (`GET|POST /search?q=…&format=json`): the result
// fields SearXNG's own result model serialises (url, title, content, engine, engines, positions,
// score, category, parsed_url, template, publishedDate), beside answers, corrections, infoboxes,
// suggestions and unresponsive_engines. An instance without "json" in `search.formats` answers 403,
// as SearXNG does. Tests put pages in its index; a query matches a page by any of its words.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface IndexedPage {
  url: string;
  title: string;
  content: string;
  engine?: string;
  publishedDate?: string | null;
}

export interface SearxngEmulator {
  url: string;
  /** Every query received, in order. */
  queries: string[];
  index(pages: IndexedPage[]): void;
  /** Whether the instance allows the JSON format (SearXNG's default settings do not). */
  setJsonEnabled(on: boolean): void;
  close(): Promise<void>;
}

const words = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function resultOf(p: IndexedPage, position: number, query: string) {
  const u = new URL(p.url);
  const engine = p.engine ?? 'duckduckgo';
  const hits = words(query).filter((w) => words(`${p.title} ${p.content}`).includes(w)).length;
  return {
    url: p.url,
    title: p.title,
    content: p.content,
    engine,
    parsed_url: [
      u.protocol.slice(0, -1),
      u.host,
      u.pathname,
      '',
      u.search.slice(1),
      u.hash.slice(1),
    ],
    template: 'default.html',
    engines: [engine],
    positions: [position],
    publishedDate: p.publishedDate ?? null,
    thumbnail: '',
    score: hits / position,
    category: 'general',
    priority: '',
  };
}

export async function startSearxngEmulator(): Promise<SearxngEmulator> {
  let pages: IndexedPage[] = [];
  let json = true;
  const queries: string[] = [];
  const server = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://searxng');
      const params =
        req.method === 'POST'
          ? new URLSearchParams(Buffer.concat(body).toString())
          : url.searchParams;
      if (url.pathname !== '/search' && url.pathname !== '/') {
        res.writeHead(404).end();
        return;
      }
      const format = params.get('format') ?? 'html';
      if (format !== 'html' && !(format === 'json' && json)) {
        res
          .writeHead(403, { 'content-type': 'text/html' })
          .end('<html><body>403 Forbidden</body></html>');
        return;
      }
      const q = params.get('q') ?? '';
      queries.push(q);
      const wanted = new Set(words(q));
      const found = pages.filter((p) =>
        words(`${p.title} ${p.content}`).some((w) => wanted.has(w)),
      );
      const results = found.map((p, i) => resultOf(p, i + 1, q)).sort((a, b) => b.score - a.score);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query: q,
          number_of_results: 0,
          results,
          answers: [],
          corrections: [],
          infoboxes: [],
          suggestions: [],
          unresponsive_engines: [],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    index: (p) => {
      pages = [...pages, ...p];
    },
    setJsonEnabled: (on) => {
      json = on;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
