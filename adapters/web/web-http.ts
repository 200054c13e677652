// Small HTTP helpers for the web chat: bounded bodies, JSON answers and the security headers every
// response carries.
import type http from 'node:http';

/** Scripts, styles and connections from the bot itself only; nothing inline, no frames. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function securityHeaders(res: http.ServerResponse, csp = PAGE_CSP): void {
  res.setHeader('content-security-policy', csp);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(JSON.stringify(body));
}

/** A refusal the sender can read: `{error}` for the API, the same words as text elsewhere. */
export function sendError(res: http.ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: message });
}

export class BodyTooLarge extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`request body over ${limit} bytes`);
    this.limit = limit;
  }
}

/** The request body, refusing (BodyTooLarge) once it passes `limit` bytes, declared or sent. */
export function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.off('data', onData);
        reject(new BodyTooLarge(limit));
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

/** After a refused body, the connection is closed instead of reading the rest. */
export function closeAfter(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.setHeader('connection', 'close');
  res.once('finish', () => req.destroy());
}
