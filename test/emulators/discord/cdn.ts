// Discord's attachment CDN: signed, expiring URLs of the form
// /attachments/<channel>/<id>/<filename>?ex=<hex unix>&is=<hex unix>&hm=<hmac hex>&
// (interaction uploads live under /ephemeral-attachments/<application>/…). The CDN answers a
// missing, tampered or expired signature with 404, so bots must refetch the message (or call
// /attachments/refresh-urls) for a fresh URL; every serialisation signs anew, as the API does.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIAttachment } from 'discord.js';
import { snowflake } from './snowflake.ts';

export interface CdnFile {
  id: string;
  kind: 'attachments' | 'ephemeral-attachments';
  /** Channel id (attachments) or application id (ephemeral-attachments). */
  scope: string;
  filename: string;
  bytes: Buffer;
  contentType: string;
  description?: string;
  ephemeral: boolean;
}

export interface CdnDownload {
  path: string;
  status: number;
  at: number;
}

const DEFAULT_TTL_MS = 24 * 60 * 60_000;

export class Cdn {
  ttlMs = DEFAULT_TTL_MS;
  /** Added to the CDN's clock: lets tests age URLs without sleeping. */
  clockOffsetMs = 0;
  readonly downloads: CdnDownload[] = [];
  readonly #files = new Map<string, CdnFile>();
  readonly #byId = new Map<string, CdnFile>();
  readonly #secret = randomBytes(32);

  readonly origin: () => string;

  constructor(origin: () => string) {
    this.origin = origin;
  }

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  add(
    input: { filename: string; bytes: Uint8Array; contentType?: string; description?: string },
    kind: CdnFile['kind'],
    scope: string,
  ): CdnFile {
    const file: CdnFile = {
      id: snowflake(),
      kind,
      scope,
      filename: sanitizeFilename(input.filename),
      bytes: Buffer.from(input.bytes),
      contentType: input.contentType ?? guessType(input.filename),
      ephemeral: kind === 'ephemeral-attachments',
    };
    if (input.description !== undefined) file.description = input.description;
    this.#files.set(this.#path(file), file);
    this.#byId.set(file.id, file);
    return file;
  }

  byId(id: string): CdnFile | undefined {
    return this.#byId.get(id);
  }

  /** A freshly signed URL for the file. */
  url(file: CdnFile): string {
    const path = this.#path(file);
    const issued = Math.floor(this.now() / 1000);
    const expires = Math.floor((this.now() + this.ttlMs) / 1000);
    const ex = expires.toString(16);
    const is = issued.toString(16);
    return `${this.origin()}${path}?ex=${ex}&is=${is}&hm=${this.#sign(path, ex, is)}&`;
  }

  describe(file: CdnFile): APIAttachment {
    const url = this.url(file);
    const a: APIAttachment = {
      id: file.id,
      filename: file.filename,
      size: file.bytes.length,
      url,
      proxy_url: url,
      content_type: file.contentType,
    };
    if (file.description !== undefined) a.description = file.description;
    if (file.ephemeral) a.ephemeral = true;
    return a;
  }

  /** POST /attachments/refresh-urls: re-signs URLs of known files, whatever their age. */
  refresh(urls: string[]): { original: string; refreshed: string }[] {
    const out: { original: string; refreshed: string }[] = [];
    for (const original of urls) {
      let path = '';
      try {
        path = new URL(original).pathname;
      } catch {
        continue;
      }
      const file = this.#files.get(decodePath(path));
      if (file !== undefined) out.push({ original, refreshed: this.url(file) });
    }
    return out;
  }

  /** Serves CDN paths; false when the path is not the CDN's. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    if (!/^\/(ephemeral-)?attachments\//.test(url.pathname)) return false;
    const path = decodePath(url.pathname);
    const file = this.#files.get(path);
    const status = file === undefined ? 404 : this.#verify(path, url.searchParams);
    this.downloads.push({ path, status, at: Date.now() });
    if (file === undefined || status !== 200) {
      // What cdn.discordapp.com says for expired or unsigned attachment links.
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('This content is no longer available.');
      return true;
    }
    res.writeHead(200, {
      'content-type': file.contentType,
      'content-length': String(file.bytes.length),
      'content-disposition': `attachment; filename="${file.filename}"`,
      'cache-control': 'public, max-age=31536000',
    });
    res.end(req.method === 'HEAD' ? undefined : file.bytes);
    return true;
  }

  #verify(path: string, q: URLSearchParams): number {
    const ex = q.get('ex') ?? '';
    const is = q.get('is') ?? '';
    const hm = q.get('hm') ?? '';
    if (!/^[0-9a-f]+$/.test(ex) || !/^[0-9a-f]+$/.test(is) || !/^[0-9a-f]{64}$/.test(hm)) {
      return 404;
    }
    const want = Buffer.from(this.#sign(path, ex, is), 'hex');
    if (!timingSafeEqual(want, Buffer.from(hm, 'hex'))) return 404;
    return Number.parseInt(ex, 16) * 1000 > this.now() ? 200 : 404;
  }

  #sign(path: string, ex: string, is: string): string {
    return createHmac('sha256', this.#secret).update(`${path}|${ex}|${is}`).digest('hex');
  }

  #path(file: CdnFile): string {
    return `/${file.kind}/${file.scope}/${file.id}/${file.filename}`;
  }
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Discord replaces spaces and drops characters outside a safe set in attachment names. */
export function sanitizeFilename(name: string): string {
  const cleaned = name
    .replace(/\s+/g, '_')
    .replace(/[^A-Za-z0-9._-]/g, '')
    .replace(/^\.+/, '');
  return cleaned === '' ? 'unknown' : cleaned;
}

const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  zip: 'application/zip',
};

function guessType(name: string): string {
  const ext = name.split('.').pop()?.toLowerCase() ?? '';
  return TYPES[ext] ?? 'application/octet-stream';
}
