// Rate limiting as @discordjs/rest reads it: X-RateLimit-Limit/Remaining/Reset/Reset-After/
// Bucket on every answer, 429 `{ message, retry_after, global }` with Retry-After when a bucket
// is spent, and injected faults (429, 5xx, 4xx) queued per `METHOD /path` pattern.
import { createHash } from 'node:crypto';
import { type Answer, apiError } from './api-errors.ts';
import type { Fault } from './types.ts';

interface Window {
  count: number;
  resetAt: number;
}

interface QueuedFault {
  route: RegExp;
  fault: Fault;
  left: number;
}

export class RateLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #limit: number;
  readonly #windowMs: number;

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /**
   * Counts a call against `${bucket} ${major}`: the headers to send, or a 429 when spent.
   * Buckets are per route and major parameter (channel, guild, webhook), as Discord's are.
   */
  take(bucket: string, major: string): Answer {
    const now = Date.now();
    const key = `${bucket} ${major}`;
    let w = this.#windows.get(key);
    if (w === undefined || now >= w.resetAt) {
      w = { count: 0, resetAt: now + this.#windowMs };
      this.#windows.set(key, w);
    }
    const resetAfter = (w.resetAt - now) / 1000;
    const headers = {
      'x-ratelimit-limit': String(this.#limit),
      'x-ratelimit-remaining': String(Math.max(0, this.#limit - w.count - 1)),
      'x-ratelimit-reset': (w.resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': createHash('sha1').update(bucket).digest('hex').slice(0, 32),
    };
    if (w.count < this.#limit) {
      w.count += 1;
      return { status: 200, headers };
    }
    return {
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: resetAfter, global: false },
      headers: {
        ...headers,
        'x-ratelimit-remaining': '0',
        'x-ratelimit-scope': 'user',
        'retry-after': String(Math.ceil(resetAfter)),
      },
    };
  }
}

export class FaultQueue {
  readonly #queued: QueuedFault[] = [];

  add(route: RegExp, fault: Fault): void {
    this.#queued.push({ route, fault, left: Math.max(1, fault.times ?? 1) });
  }

  /** The fault for a call to `METHOD /path`, if one is queued for it. */
  take(target: string): Answer | undefined {
    const i = this.#queued.findIndex((f) => f.route.test(target));
    const queued = this.#queued[i];
    if (queued === undefined) return undefined;
    queued.left -= 1;
    if (queued.left === 0) this.#queued.splice(i, 1);
    return faultAnswer(queued.fault);
  }
}

function faultAnswer(fault: Fault): Answer {
  if (fault.status === 429) {
    const after = fault.retryAfterSec ?? 1;
    const global = fault.global === true;
    const headers: Record<string, string> = {
      // Discord rounds this header up to whole seconds; the body and Reset-After keep the fraction.
      'retry-after': String(Math.ceil(after)),
      'x-ratelimit-scope': global ? 'global' : 'user',
    };
    if (global) headers['x-ratelimit-global'] = 'true';
    else {
      headers['x-ratelimit-limit'] = '5';
      headers['x-ratelimit-remaining'] = '0';
      headers['x-ratelimit-reset'] = ((Date.now() + after * 1000) / 1000).toFixed(3);
      headers['x-ratelimit-reset-after'] = after.toFixed(3);
    }
    const body = { message: 'You are being rate limited.', retry_after: after, global };
    return { status: 429, body, headers };
  }
  if (fault.status >= 500) {
    return apiError(fault.status, 0, `${fault.status}: Internal Server Error`);
  }
  return apiError(
    fault.status,
    fault.code ?? 0,
    fault.message ?? `${fault.status}: Injected fault`,
  );
}
