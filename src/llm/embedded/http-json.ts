// JSON in and out of the embedded model's HTTP server, with a bound on the body it reads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WireError } from './wire.ts';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new WireError('The request body is too large.', 413);
    chunks.push(buf);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WireError('The request body is not valid JSON.');
  }
}
