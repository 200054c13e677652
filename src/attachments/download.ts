// Downloads a platform file with the bot token: only from the platform's file hosts, redirects
// followed by hand so the token never travels to another origin, a size limit while streaming,
// and an HTML answer (a sign-in page) read as "no access" rather than as the file.
import type { FileRef } from '../model/incoming.ts';
import { AttachmentError } from './types.ts';

export interface DownloadOptions {
  url: string;
  filename: string;
  /** Sent only to `allowedHosts`, never after a redirect to another origin. */
  bearerToken?: string;
  allowedHosts: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
  fetch?: typeof fetch;
}

export interface Downloaded {
  bytes: Uint8Array;
  contentType: string;
}

function hostAllowed(url: URL, allowed: readonly string[]): boolean {
  return allowed.some(
    (h) => url.host === h || url.hostname === h || url.hostname.endsWith(`.${h}`),
  );
}

function sizeText(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(0)} MB` : `${Math.ceil(n / 1024)} KB`;
}

async function readLimited(res: Response, o: DownloadOptions): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > o.maxBytes) {
    await res.body?.cancel();
    throw new AttachmentError(
      'too_large',
      o.filename,
      `${sizeText(declared)}; the limit is ${sizeText(o.maxBytes)}`,
    );
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (res.body) {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > o.maxBytes) {
        await res.body.cancel().catch(() => undefined);
        throw new AttachmentError(
          'too_large',
          o.filename,
          `over ${sizeText(o.maxBytes)}, the limit`,
        );
      }
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks, total);
}

export async function downloadFile(o: DownloadOptions): Promise<Downloaded> {
  const doFetch = o.fetch ?? fetch;
  const signal = AbortSignal.timeout(o.timeoutMs);
  let url = new URL(o.url);
  const origin = url.origin;
  if (!hostAllowed(url, o.allowedHosts)) {
    throw new AttachmentError(
      'no_access',
      o.filename,
      `${url.host} is not a file host of this platform`,
    );
  }
  try {
    for (let hop = 0; hop <= (o.maxRedirects ?? 5); hop++) {
      const sameOrigin = url.origin === origin;
      const headers: Record<string, string> = {};
      if (o.bearerToken && sameOrigin) headers.authorization = `Bearer ${o.bearerToken}`;
      const res = await doFetch(url, { headers, redirect: 'manual', signal });
      if (res.status >= 300 && res.status < 400) {
        const location = res.headers.get('location');
        await res.body?.cancel();
        if (!location)
          throw new AttachmentError(
            'download_failed',
            o.filename,
            `HTTP ${res.status} without a location`,
          );
        url = new URL(location, url);
        // Air-gapped clusters: only the platform's file hosts, wherever a redirect points.
        if (
          (url.protocol !== 'https:' && url.protocol !== 'http:') ||
          !hostAllowed(url, o.allowedHosts)
        ) {
          throw new AttachmentError(
            'no_access',
            o.filename,
            `the download was redirected to ${url.host}, which is not a file host of this platform`,
          );
        }
        continue;
      }
      if (res.status === 401 || res.status === 403 || res.status === 404) {
        await res.body?.cancel();
        throw new AttachmentError('no_access', o.filename);
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new AttachmentError(
          'download_failed',
          o.filename,
          `the file host answered HTTP ${res.status}`,
        );
      }
      const contentType = res.headers.get('content-type') ?? '';
      const bytes = await readLimited(res, o);
      // Slack answers a missing or wrong token with its sign-in page, status 200.
      if (/text\/html/i.test(contentType) && !/\.html?$/i.test(o.filename)) {
        throw new AttachmentError('no_access', o.filename);
      }
      return { bytes, contentType };
    }
    throw new AttachmentError('download_failed', o.filename, 'too many redirects');
  } catch (err) {
    if (err instanceof AttachmentError) throw err;
    if (signal.aborted)
      throw new AttachmentError(
        'download_failed',
        o.filename,
        `no complete answer within ${Math.round(o.timeoutMs / 1000)} s`,
        { cause: err },
      );
    throw new AttachmentError(
      'download_failed',
      o.filename,
      err instanceof Error ? err.message : String(err),
      { cause: err },
    );
  }
}

/** Where a platform's files may be fetched from, and how much of them. */
export interface FileSource {
  /** Sent only to `allowedHosts`. */
  bearerToken?: string;
  allowedHosts: readonly string[];
  maxBytes: number;
  timeoutMs: number;
}

/**
 * A FileRef whose bytes come from `url` on the platform's hosts (a function when the address is
 * only known later). Both adapters build their files with it, so every download has the same rules.
 */
export function remoteFile(
  source: FileSource,
  file: { id: string; name: string; size?: number | undefined },
  url: string | undefined,
): FileRef {
  return {
    id: file.id,
    name: file.name,
    ...(file.size !== undefined ? { size: file.size } : {}),
    ...(url ? { url } : {}),
    download: async () => {
      if (!url)
        throw new AttachmentError('no_access', file.name, 'the platform gave no download address');
      return (await downloadFile({ ...source, url, filename: file.name })).bytes;
    },
  };
}
