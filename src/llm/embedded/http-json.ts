// The JSON a request to the embedded model carries: bounded by Hono's bodyLimit, refused in vLLM's
// words when it is too large or not JSON.
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { WireError } from './wire.ts';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new WireError('The request body is too large.', 413);
  },
});

export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WireError('The request body is not valid JSON.');
  }
}
