// The web chat's HTTP idiom on Hono: the security headers every answer carries (a CSP without
// inline script), bounded bodies through Hono's bodyLimit, and the error shape (`{error}`).
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';

/** Scripts, styles and connections from the bot itself only; nothing inline, no frames. */
export const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:', 'blob:'],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  // The chat is plain HTTP on loopback; HTTPS in front of it (and HSTS) is the proxy's to decide.
  strictTransportSecurity: false,
  // A page that sets its own policy (the sign-in form's) keeps it.
  overwrite: false,
});

/**
 * The request's body through Hono's bodyLimit: undefined once it passes `maxSize` bytes, declared
 * or sent; the connection is then closed instead of reading the rest.
 */
export async function bodyWithin(c: Context, maxSize: number): Promise<Uint8Array | undefined> {
  let body: Uint8Array | undefined;
  let over = false;
  await bodyLimit({
    maxSize,
    onError: (c) => {
      over = true;
      return c.body(null, 413);
    },
  })(c, async () => {
    body = new Uint8Array(await c.req.arrayBuffer());
  });
  if (over) c.header('connection', 'close');
  return body;
}
