// The file URLs. url_private(_download) live on the emulator's origin and need the bot token in
// `Authorization: Bearer`; without it Slack redirects to the workspace sign-in page (200, HTML),
// so a bot must check what it got rather than trust the file's name. Files can be set to answer
// with a 302, either to another path here ("edge", auth still needed) or to a second origin
// (another port) that serves the bytes without auth, like a pre-signed CDN URL.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FileStore, StoredFile } from './file-store.ts';
import type { FileDownload } from './types.ts';

const TRICKLE_MS = 10_000;
const TRICKLE_STEPS = 20;

export interface FileHttpDeps {
  files: FileStore;
  teamId: string;
  botToken: string;
  /** http://host:port of the emulator and of the other origin, known once they listen. */
  origin: () => string;
  otherOrigin: () => string;
}

interface FilePath {
  kind: 'url' | 'edge';
  team: string;
  id: string;
  key?: string;
  download: boolean;
  name: string;
}

const URL_PATH = /^\/files-pri\/([A-Z0-9]+)-([A-Z0-9]+)\/(download\/)?([^/]+)$/;
const EDGE_PATH = /^\/files-edge\/([A-Z0-9]+)-([A-Z0-9]+)\/([0-9a-f]+)\/(download\/)?([^/]+)$/;

function parse(path: string): FilePath | undefined {
  const u = URL_PATH.exec(path);
  if (u?.[1] !== undefined && u[2] !== undefined && u[4] !== undefined) {
    return { kind: 'url', team: u[1], id: u[2], download: u[3] !== undefined, name: u[4] };
  }
  const e = EDGE_PATH.exec(path);
  if (e?.[1] !== undefined && e[2] !== undefined && e[3] !== undefined && e[5] !== undefined) {
    const download = e[4] !== undefined;
    return { kind: 'edge', team: e[1], id: e[2], key: e[3], download, name: e[5] };
  }
  return undefined;
}

/** Answers file URLs, permalinks and the sign-in page; false for any other path. */
export function handleFileRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: FileHttpDeps,
): boolean {
  // Permalinks and the sign-in redirect's target are pages for a browser session.
  if (
    (url.pathname === '/' && url.searchParams.has('redir')) ||
    url.pathname.startsWith('/files/')
  ) {
    html(res, 200, SIGN_IN_PAGE);
    return true;
  }
  const p = parse(url.pathname);
  if (p === undefined) return false;
  const authorized = isBot(req, deps.botToken);
  const hop: FileDownload['hop'] = p.kind;
  const record = (outcome: FileDownload['outcome']) =>
    deps.files.record({ fileId: p.id, authorized, hop, outcome });
  if (!authorized) {
    record('sign_in');
    const location = `${deps.origin()}/?redir=${encodeURIComponent(url.pathname)}`;
    res.writeHead(302, { location, 'content-type': 'text/html; charset=utf-8' });
    res.end(`<a href="${location}">Found</a>.`);
    return true;
  }
  const f = p.team === deps.teamId ? deps.files.get(p.id) : undefined;
  if (f === undefined || (p.kind === 'edge' && p.key !== f.key)) {
    record('not_found');
    html(res, 404, NOT_FOUND_PAGE);
    return true;
  }
  if (p.kind === 'url' && f.redirect !== 'none') {
    record('redirect');
    const base = f.redirect === 'same-origin' ? deps.origin() : deps.otherOrigin();
    const location = `${base}/files-edge/${p.team}-${p.id}/${f.key}/${p.download ? 'download/' : ''}${p.name}`;
    res.writeHead(302, { location, 'content-type': 'text/html; charset=utf-8' });
    res.end(`<a href="${location}">Found</a>.`);
    return true;
  }
  serve(res, f, p.download, deps.files, { fileId: p.id, authorized, hop });
  return true;
}

/** The second origin: serves redirected downloads without auth and notes the header it got. */
export async function startOtherOrigin(
  deps: FileHttpDeps,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const header = req.headers.authorization;
    deps.files.otherOriginAuth.push(header);
    const p = parse(new URL(req.url ?? '/', 'http://other').pathname);
    const f = p?.kind === 'edge' && p.team === deps.teamId ? deps.files.get(p.id) : undefined;
    if (p === undefined || f === undefined || p.key !== f.key) {
      html(res, 403, '<!DOCTYPE html><html><body>Forbidden</body></html>');
      return;
    }
    const authorized = isBot(req, deps.botToken);
    serve(res, f, p.download, deps.files, { fileId: p.id, authorized, hop: 'other-origin' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The response that carries the bytes, unless a fault replaces it. */
function serve(
  res: ServerResponse,
  f: StoredFile,
  download: boolean,
  files: FileStore,
  who: Omit<FileDownload, 'at' | 'outcome'>,
): void {
  const fault = files.takeFault(f);
  files.record({ ...who, outcome: fault ?? 'bytes' });
  if (fault === 'http500') {
    html(res, 500, SERVER_ERROR_PAGE);
    return;
  }
  const bytes = f.bytes;
  const safeName = f.file.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  res.writeHead(200, {
    'content-type': f.file.mimetype,
    'content-length': String(bytes.byteLength),
    'content-disposition': `${download ? 'attachment' : 'inline'}; filename="${safeName}"; filename*=UTF-8''${encodeURIComponent(f.file.name)}`,
    'cache-control': 'private, max-age=31536000',
  });
  if (fault === undefined) {
    res.end(bytes);
    return;
  }
  res.flushHeaders();
  if (fault === 'reset') {
    // Half the promised bytes, then a TCP reset: the body read fails mid-way.
    const cut = () => setTimeout(() => res.socket?.resetAndDestroy(), 20);
    const half = bytes.subarray(0, Math.floor(bytes.byteLength / 2));
    if (half.byteLength > 0) res.write(half, cut);
    else cut();
    return;
  }
  let step = 0;
  const timer = setInterval(() => {
    const n = bytes.byteLength;
    const chunk = bytes.subarray(
      Math.floor((step * n) / TRICKLE_STEPS),
      Math.floor(((step + 1) * n) / TRICKLE_STEPS),
    );
    step += 1;
    if (step < TRICKLE_STEPS) {
      if (chunk.byteLength > 0) res.write(chunk);
      return;
    }
    clearInterval(timer);
    res.end(chunk);
  }, TRICKLE_MS / TRICKLE_STEPS);
  res.on('close', () => clearInterval(timer));
}

function isBot(req: IncomingMessage, botToken: string): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1] === botToken;
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

const SIGN_IN_PAGE = `<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8">
<title>Slack</title></head><body><main><h1>Sign in to threadmind-emulator</h1>
<p>Enter your workspace's Slack URL or your email address.</p>
<form action="/signin" method="post"><input type="email" name="email" placeholder="name@work-email.com">
<button type="submit">Sign In With Email</button></form></main></body></html>
`;
const NOT_FOUND_PAGE =
  '<!DOCTYPE html><html lang="en-US"><head><title>Page Not Found | Slack</title></head><body><h1>There’s been a glitch…</h1></body></html>\n';
const SERVER_ERROR_PAGE =
  '<!DOCTYPE html><html lang="en-US"><head><title>Server Error | Slack</title></head><body><h1>Something went wrong</h1></body></html>\n';
