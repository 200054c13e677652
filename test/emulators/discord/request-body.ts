// Request bodies as discord.js sends them: JSON, or multipart/form-data with `files[n]` parts
// and the JSON payload in `payload_json` (when attachments are uploaded).
import type { IncomingMessage } from 'node:http';
import { type Answer, Errors } from './api-errors.ts';
import type { UploadedFileInfo } from './types.ts';

export interface UploadedFile extends UploadedFileInfo {
  bytes: Buffer;
}

export interface ParsedBody {
  body: unknown;
  files: UploadedFile[];
  error?: Answer;
}

const MAX_BODY_BYTES = 30 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<ParsedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  // Drain the whole body even when refusing it, so the keep-alive connection stays usable.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(chunk as Buffer);
  }
  if (tooLarge) return { body: undefined, files: [], error: Errors.tooLarge() };
  const raw = Buffer.concat(chunks);
  if (raw.length === 0) return { body: undefined, files: [] };
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'multipart/form-data')
    return readMultipart(raw, String(req.headers['content-type']));
  try {
    return { body: JSON.parse(raw.toString('utf8')), files: [] };
  } catch {
    return { body: raw.toString('utf8').slice(0, 200), files: [], error: Errors.invalidJson() };
  }
}

async function readMultipart(raw: Buffer, contentType: string): Promise<ParsedBody> {
  const form = await new Response(new Uint8Array(raw), {
    headers: { 'content-type': contentType },
  }).formData();
  let body: Record<string, unknown> = {};
  const files: UploadedFile[] = [];
  for (const [field, value] of form) {
    if (typeof value !== 'string') {
      const bytes = Buffer.from(await value.arrayBuffer());
      const type = value.type === '' ? 'application/octet-stream' : value.type;
      files.push({ field, filename: value.name, size: bytes.length, contentType: type, bytes });
    } else if (field === 'payload_json') {
      try {
        body = { ...body, ...(JSON.parse(value) as Record<string, unknown>) };
      } catch {
        return { body, files, error: Errors.invalidJson() };
      }
    } else {
      body[field] = value;
    }
  }
  return { body, files };
}
