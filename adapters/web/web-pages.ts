// What the web chat serves besides its API: the page and its static files (public/, read once at
// start), and the login form where a token guards the chat.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { Context, Hono } from 'hono';
import { getMimeType } from 'hono/utils/mime';
import { type HttpEnv, refuse } from '../../src/log/http-app.ts';
import { LOGIN_CSP, loginPage } from './login-page.ts';
import type { WebGuard } from './web-guard.ts';
import { bodyWithin } from './web-http.ts';

const PUBLIC = new URL('./public/', import.meta.url);

/** The sign-in form's page, with its own CSP (its style is allowed by hash). */
function page(c: Context, status: 200 | 401 | 404 | 413, error?: string): Response {
  return c.html(loginPage(error), status, {
    'content-security-policy': LOGIN_CSP,
    'cache-control': 'no-store',
  });
}

export class WebPages {
  private readonly guard: WebGuard;
  /** public/'s files by name, with their types: a handful, served from memory. */
  private readonly files = new Map<string, { body: Uint8Array<ArrayBuffer>; type: string }>();

  constructor(guard: WebGuard) {
    this.guard = guard;
    for (const name of readdirSync(PUBLIC)) {
      const file = new URL(name, PUBLIC);
      // A file or a link to one (markdown-it.js is node_modules' build); not a folder.
      if (!statSync(file).isFile()) continue;
      const body = new Uint8Array(readFileSync(file));
      this.files.set(name, { body, type: getMimeType(name) ?? 'application/octet-stream' });
    }
  }

  /** GET and POST /login: the sign-in form, and the cookie once the token is right. */
  login(app: Hono<HttpEnv>): void {
    app.get('/login', (c) => page(c, this.guard.needsToken ? 200 : 404));
    app.post('/login', async (c) => {
      const body = await bodyWithin(c, 4096);
      if (!body) return page(c, 413, 'That is far too long for a token.');
      const given = new URLSearchParams(new TextDecoder().decode(body)).get('token') ?? '';
      if (!this.guard.login(c, given)) return page(c, 401, 'That token is not right.');
      c.header('cache-control', 'no-store');
      return c.redirect('/', 303);
    });
    app.all('/login', () => refuse(405, 'Use GET or POST here.'));
  }

  /** The login page where the chat asks for its token (401 without it). */
  loginNeeded(c: Context): Response {
    return page(c, 401);
  }

  /** `/` (index.html) and `/static/<file>`: public/'s files; anything else here is no page. */
  assets(app: Hono<HttpEnv>): void {
    const serve = (c: Context, name: string) => {
      const file = this.files.get(name);
      if (!file) refuse(404, 'No such page.');
      return c.body(file.body, 200, { 'content-type': file.type, 'cache-control': 'no-cache' });
    };
    app.get('/', (c) => serve(c, 'index.html'));
    app.get('/static/:name', (c) => serve(c, c.req.param('name')));
    app.all('*', (c) =>
      c.req.method === 'GET' || c.req.method === 'HEAD'
        ? refuse(404, 'No such page.')
        : refuse(405, 'Use GET here.'),
    );
  }
}
