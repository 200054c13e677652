// Fetching a page a model asked for, without letting it reach what the bot can reach: http(s) only,
// the host's addresses checked after DNS and on every redirect (followed here, a bounded number of
// times), the socket pinned to the checked address, the body streamed under a size cap, the whole
// fetch under one deadline (a slow body included), and no credentials, cookies or auth headers.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { AllowList, addressVerdict } from './address-policy.ts';
import { GuardedFetchError } from './fetch-error.ts';
import { type PinnedTarget, pinnedGet } from './pinned-request.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to (injected so tests can answer with addresses of their choosing). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

export interface GuardedFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Trusted internal hosts: names, `*.suffix`, IPs or CIDR ranges. */
  allowHosts: readonly string[];
  userAgent: string;
  resolve?: Resolver;
}

export interface FetchedPage {
  /** The address the body came from, after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = base ? new URL(raw, base) : new URL(raw);
  } catch {
    throw new GuardedFetchError('bad_url', `"${raw}" is not a web address.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new GuardedFetchError(
      'scheme',
      `Only http and https pages can be read, not ${url.protocol}`,
    );
  if (url.username || url.password)
    throw new GuardedFetchError(
      'credentials',
      'Addresses with a user name or password are refused.',
    );
  url.hash = '';
  return url;
}

async function checkedTarget(url: URL, allow: AllowList, resolve: Resolver): Promise<PinnedTarget> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      throw new GuardedFetchError('dns', `The host ${host} could not be found.`, { cause: err });
    }
    if (addresses.length === 0)
      throw new GuardedFetchError('dns', `The host ${host} could not be found.`);
  }
  // Every answer must pass: the one connected to is the first, and a mixed answer is suspect.
  for (const a of addresses) {
    const why = addressVerdict(host, a.address, allow);
    if (why)
      throw new GuardedFetchError(
        'forbidden_address',
        `Refused to read ${url.origin}: ${host} resolves to ${a.address}, and ${why}. Only public web pages can be read.`,
      );
  }
  const first = addresses[0] as ResolvedAddress;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

async function readCapped(res: IncomingMessage, maxBytes: number, url: URL): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  const tooLarge = () =>
    new GuardedFetchError(
      'too_large',
      `The page at ${url.href} is larger than ${Math.round(maxBytes / 1024)} KB, the most that is read.`,
    );
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      res.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function failureOf(err: unknown, signal: AbortSignal, o: GuardedFetchOptions, url: string) {
  if (GuardedFetchError.isInstance(err)) return err;
  if (signal.aborted)
    return new GuardedFetchError(
      'timeout',
      `Reading ${url} took longer than ${Math.round(o.timeoutMs / 1000)} s and was stopped.`,
      { cause: err },
    );
  return new GuardedFetchError('unreachable', `${url} could not be reached.`, { cause: err });
}

/** GETs `raw` under the guard; throws GuardedFetchError with words the model can be shown. */
export async function guardedFetch(raw: string, o: GuardedFetchOptions): Promise<FetchedPage> {
  const allow = new AllowList(o.allowHosts);
  const resolve = o.resolve ?? systemResolver;
  const signal = AbortSignal.timeout(o.timeoutMs);
  const headers = {
    'user-agent': o.userAgent,
    accept: 'text/html, application/xhtml+xml, application/pdf, text/plain;q=0.9, */*;q=0.5',
    'accept-encoding': 'identity',
  };
  let url = parseTarget(raw);
  try {
    for (let hop = 0; ; hop++) {
      const target = await checkedTarget(url, allow, resolve);
      const res = await pinnedGet(target, headers, signal);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.destroy(); // its body is not needed, and need not end
        if (hop >= o.maxRedirects)
          throw new GuardedFetchError(
            'too_many_redirects',
            `${raw} redirected more than ${o.maxRedirects} times; it was not followed further.`,
          );
        url = parseTarget(location, url);
        continue;
      }
      if (status < 200 || status >= 300) {
        res.destroy(); // its body is not needed, and need not end
        throw new GuardedFetchError('http_status', `${url.href} answered HTTP ${status}.`);
      }
      const body = await readCapped(res, o.maxBytes, url);
      const contentType = String(res.headers['content-type'] ?? '').toLowerCase();
      return { url: url.href, status, contentType, body };
    }
  } catch (err) {
    throw failureOf(err, signal, o, url.href);
  }
}
