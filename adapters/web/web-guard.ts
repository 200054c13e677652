// Who may use the web chat. On loopback (the default) only this machine: requests must arrive on a
// loopback interface and name a loopback host (so a web page cannot reach the chat by pointing a DNS
// name at 127.0.0.1). Exposed, every request and stream must carry WEB_AUTH_TOKEN, as a Bearer
// header or as the cookie the login form sets. A POST from a browser must come from the chat's own
// origin.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { HttpEnv } from '../../src/log/http-app.ts';

export const SESSION_COOKIE = 'threadmind_web';

export interface GuardOptions {
  /** Listening beyond loopback (a token is then required by the configuration). */
  exposed: boolean;
  token: string | undefined;
}

export type Verdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Equal strings, compared in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

const LOOPBACK_ADDRESS = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

function hostName(hostHeader: string): string {
  // `[::1]:3000`, `localhost:3000`, `127.0.0.1`
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(hostHeader) ?? /^([^:]+)(?::\d+)?$/.exec(hostHeader);
  return (m?.[1] ?? '').toLowerCase();
}

function isLoopbackName(name: string): boolean {
  return name === 'localhost' || LOOPBACK_ADDRESS.test(name);
}

export class WebGuard {
  private readonly o: GuardOptions;
  /** The cookie holds a value derived from the token, not the token itself. */
  private readonly cookieValue: string | undefined;

  constructor(o: GuardOptions) {
    this.o = o;
    this.cookieValue = o.token
      ? createHmac('sha256', o.token).update('threadmind web session').digest('base64url')
      : undefined;
  }

  get needsToken(): boolean {
    return this.o.token !== undefined;
  }

  /** Where the request came from, before anything else is looked at. */
  place(c: Context<HttpEnv>): Verdict {
    if (this.o.exposed) return { ok: true };
    const local = c.env.incoming.socket.localAddress ?? '';
    if (!LOOPBACK_ADDRESS.test(local) || !isLoopbackName(hostName(c.req.header('host') ?? ''))) {
      return {
        ok: false,
        status: 403,
        reason:
          'The web chat answers on this machine only (http://127.0.0.1). To open it to others set WEB_HOST and WEB_AUTH_TOKEN.',
      };
    }
    return { ok: true };
  }

  /** The token, from the Authorization header or the session cookie. */
  token(c: Context): Verdict {
    const token = this.o.token;
    if (token === undefined) return { ok: true };
    const auth = c.req.header('authorization') ?? '';
    const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    if (bearer !== undefined && sameSecret(bearer, token)) return { ok: true };
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie !== undefined && this.cookieValue && sameSecret(cookie, this.cookieValue))
      return { ok: true };
    return { ok: false, status: 401, reason: 'Sign in with the web chat token (WEB_AUTH_TOKEN).' };
  }

  /** A browser's POST must come from this origin: another site's page cannot post as you. */
  origin(c: Context): Verdict {
    const origin = c.req.header('origin');
    if (origin === undefined) {
      // Browsers send Origin on every POST; a request without it is not a browser's cross-site form.
      const site = c.req.header('sec-fetch-site');
      if (site === undefined || site === 'same-origin' || site === 'none') return { ok: true };
    } else {
      try {
        if (new URL(origin).host === (c.req.header('host') ?? '').toLowerCase())
          return { ok: true };
      } catch {
        // an unparsable Origin is refused below
      }
    }
    return { ok: false, status: 403, reason: 'Requests must come from the web chat itself.' };
  }

  /** The login form's answer: the session cookie set when the token is right. */
  login(c: Context, given: string): boolean {
    if (!this.o.token || !this.cookieValue || !sameSecret(given, this.o.token)) return false;
    setCookie(c, SESSION_COOKIE, this.cookieValue, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    });
    return true;
  }
}
