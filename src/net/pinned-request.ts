// One HTTP(S) request to an address already checked: the socket connects to exactly that address
// (a `lookup` that answers with it), so a second DNS answer cannot send it elsewhere (rebinding).
// TLS still verifies the certificate against the host name. No agent: no pooled socket, no proxy,
// no cookies; only the headers given here are sent.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

export interface PinnedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
}

/** Sends a GET and resolves with the response head; the body is the caller's to read or drop. */
export function pinnedGet(
  t: PinnedTarget,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const mod = t.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      t.url,
      {
        method: 'GET',
        agent: false,
        headers,
        lookup: pinnedLookup(t.address, t.family),
        signal,
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}
