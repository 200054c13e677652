// One signed Events API POST, the way Slack sends it: JSON body, v0 HMAC signature over
// `v0:${timestamp}:${body}`, retry headers on redeliveries, and a hard deadline for the answer.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { DeliveryResult } from './types.ts';

export interface SignedPostOptions {
  signingSecret: string;
  timeoutMs: number;
  retryNum?: number;
  retryReason?: string;
  badSignature?: boolean;
  timestampSkewSec?: number;
}

export function signature(signingSecret: string, timestamp: string, body: string): string {
  const digest = createHmac('sha256', signingSecret)
    .update(`v0:${timestamp}:${body}`)
    .digest('hex');
  return `v0=${digest}`;
}

export function postSigned(
  url: string,
  envelope: Record<string, unknown>,
  opts: SignedPostOptions,
): Promise<DeliveryResult> {
  return postSignedBody(url, JSON.stringify(envelope), 'application/json', opts);
}

/** Slash commands and interactivity payloads come form-encoded, signed the same way. */
export function postSignedBody(
  url: string,
  body: string,
  contentType: string,
  opts: SignedPostOptions,
): Promise<DeliveryResult> {
  const timestamp = String(Math.floor(Date.now() / 1000) - (opts.timestampSkewSec ?? 0));
  const secret = opts.badSignature === true ? `${opts.signingSecret}-wrong` : opts.signingSecret;
  const headers: Record<string, string> = {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    accept: '*/*',
    'x-slack-signature': signature(secret, timestamp, body),
    'x-slack-request-timestamp': timestamp,
  };
  if (opts.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(opts.retryNum);
    headers['x-slack-retry-reason'] = opts.retryReason ?? 'http_timeout';
  }
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<DeliveryResult, 'elapsedMs'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, elapsedMs: Date.now() - started });
    };
    // agent:false so no keep-alive socket outlives the delivery and holds the test process open.
    const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        finish({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: flatHeaders(res.headers),
        }),
      );
      res.on('error', (err) => finish(failure(err.message)));
    });
    // Slack gives up on an app that has not answered in time and closes the connection.
    const timer = setTimeout(() => {
      finish(failure(`timeout: no answer within ${opts.timeoutMs} ms`));
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (err) => finish(failure(err.message)));
    req.end(body);
  });
}

export function isTimeout(result: DeliveryResult): boolean {
  return result.status === 0 && result.error?.startsWith('timeout') === true;
}

function failure(error: string): Omit<DeliveryResult, 'elapsedMs'> {
  return { status: 0, body: '', headers: {}, error };
}

function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}
