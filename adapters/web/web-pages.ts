// What the web chat serves besides its API: the page and its static files, and the login form
// where a token guards the chat.
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import { LOGIN_CSP, loginPage } from './login-page.ts';
import type { WebGuard } from './web-guard.ts';
import { BodyTooLarge, closeAfter, readBody, securityHeaders, sendError } from './web-http.ts';

const STATIC: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'markdown.js': 'text/javascript; charset=utf-8',
  'markdown-it.js': 'text/javascript; charset=utf-8',
  'icons.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

export class WebPages {
  private readonly guard: WebGuard;
  private readonly assets = new Map<string, { body: Buffer; type: string }>();

  constructor(guard: WebGuard) {
    this.guard = guard;
    const dir = new URL('./public/', import.meta.url);
    for (const [name, type] of Object.entries(STATIC))
      this.assets.set(name, { body: readFileSync(new URL(name, dir)), type });
    this.assets.set('', {
      body: readFileSync(new URL('index.html', dir)),
      type: 'text/html; charset=utf-8',
    });
  }

  asset(req: http.IncomingMessage, res: http.ServerResponse, path: string): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(res, 405, 'Use GET here.');
      return;
    }
    const name = path === '/' ? '' : path.startsWith('/static/') ? path.slice(8) : undefined;
    const asset = name === undefined ? undefined : this.assets.get(name);
    if (!asset) {
      sendError(res, 404, 'No such page.');
      return;
    }
    res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }

  /** The login page where the chat asks for its token (401 without it). */
  loginNeeded(res: http.ServerResponse): void {
    securityHeaders(res, LOGIN_CSP);
    res.writeHead(401, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(loginPage());
  }

  async login(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    securityHeaders(res, LOGIN_CSP);
    const page = (status: number, error?: string) => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(loginPage(error));
    };
    if (req.method === 'GET') return page(this.guard.needsToken ? 200 : 404);
    if (req.method !== 'POST') return sendError(res, 405, 'Use GET or POST here.');
    let body: Buffer;
    try {
      body = await readBody(req, 4096);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      closeAfter(req, res);
      return page(413, 'That is far too long for a token.');
    }
    const given = new URLSearchParams(body.toString('utf8')).get('token') ?? '';
    const cookie = this.guard.login(given);
    if (!cookie) return page(401, 'That token is not right.');
    res.writeHead(303, { location: '/', 'set-cookie': cookie, 'cache-control': 'no-store' });
    res.end();
  }
}
