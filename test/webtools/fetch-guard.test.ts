// The page fetch's guard, as the model meets it through fetch_url: internal, private and metadata
// addresses refused (literal, after DNS, after a redirect), a huge or stalled body cut off, and
// nothing private forwarded. Every refusal is a tool result in words, not a crash.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/log/logger.ts';
import { GuardedFetchError } from '../../src/net/fetch-error.ts';
import {
  type GuardedFetchOptions,
  guardedFetch,
  type Resolver,
} from '../../src/net/guarded-fetch.ts';
import { fetchUrlTool } from '../../src/webtools/web-tools.ts';
import { hugeBody, type PageServer, stalledBody, startPageServer } from '../support/page-server.ts';

const LIMITS = {
  timeoutMs: 10000,
  maxMemoryMb: 128,
  maxPages: 50,
  maxChars: 100000,
  maxUnzippedBytes: 1e7,
};

/** Names the tests use, as a stubbed DNS answers them. */
const DNS: Record<string, string[]> = {
  'public.example': ['10.0.0.1'],
  'mixed.example': ['127.0.0.1', '93.184.216.34'],
  'intranet.test': ['127.0.0.1'],
  'rebind.test': ['127.0.0.1'],
  localhost: ['127.0.0.1', '::1'],
};
const stubResolver: Resolver = async (host) => {
  const found = DNS[host];
  if (!found)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

function options(over: Partial<GuardedFetchOptions> = {}): GuardedFetchOptions {
  return {
    maxBytes: 1024 * 1024,
    timeoutMs: 5000,
    maxRedirects: 3,
    allowHosts: [],
    userAgent: 'threadmind-test',
    resolve: stubResolver,
    ...over,
  };
}

async function refusal(url: string, over: Partial<GuardedFetchOptions> = {}) {
  try {
    await guardedFetch(url, options(over));
  } catch (err) {
    assert.ok(GuardedFetchError.isInstance(err), String(err));
    return err;
  }
  assert.fail(`${url} was fetched`);
}

describe('fetch_url guard', () => {
  let s: PageServer;
  before(async () => {
    s = await startPageServer({
      '/page': (res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Hi</title><p>hello</p>'),
      '/to-private': (res) => res.writeHead(302, { location: 'http://10.0.0.1/admin' }).end(),
      '/to-metadata': (res) =>
        res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
      '/to-loopback-name': (res) =>
        res.writeHead(302, { location: `http://localhost:${s.port}/page` }).end(),
      '/to-page': (res) => res.writeHead(302, { location: '/page', 'set-cookie': 'sid=1' }).end(),
      '/loop': (res) => res.writeHead(302, { location: '/loop' }).end(),
      '/huge-declared': hugeBody(50 * 1024 * 1024, true),
      '/huge-chunked': hugeBody(50 * 1024 * 1024, false),
      '/slow': stalledBody,
    });
  });
  after(async () => {
    await s.close();
  });

  for (const url of [
    'http://127.0.0.1/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://[fc00::1]/',
    'http://[fd00:ec2::254]/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fe80::1]/',
    'http://192.168.1.1/',
    'http://172.16.0.1/',
    'http://2130706433/',
  ])
    test(`${url} is refused before any connection`, async () => {
      const err = await refusal(url);
      assert.equal(err.code, 'forbidden_address');
      assert.match(err.message, /Only public web pages can be read/);
    });

  test('a public name resolving to a private address is refused', async () => {
    const err = await refusal('http://public.example/');
    assert.equal(err.code, 'forbidden_address');
    assert.match(
      err.message,
      /public\.example resolves to 10\.0\.0\.1, and it is a private network address/,
    );
  });

  test('a name with one private answer among public ones is refused', async () => {
    assert.equal((await refusal('http://mixed.example/')).code, 'forbidden_address');
  });

  test('a redirect to a private, metadata or loopback address is refused', async () => {
    // The first host is trusted; where it redirects is checked on its own.
    const allowHosts = ['intranet.test'];
    for (const path of ['/to-private', '/to-metadata', '/to-loopback-name']) {
      const err = await refusal(`http://intranet.test:${s.port}${path}`, { allowHosts });
      assert.equal(err.code, 'forbidden_address', path);
    }
  });

  test('only http(s), and no user name or password in the address', async () => {
    assert.equal((await refusal('file:///etc/passwd')).code, 'scheme');
    assert.equal((await refusal('ftp://example.com/x')).code, 'scheme');
    assert.equal((await refusal('http://user:pw@intranet.test/')).code, 'credentials');
  });

  test('redirects are bounded', async () => {
    const err = await refusal(s.url('/loop'), { allowHosts: ['127.0.0.1'] });
    assert.equal(err.code, 'too_many_redirects');
  });

  test('a 50 MB body is refused, declared or streamed', async () => {
    for (const path of ['/huge-declared', '/huge-chunked']) {
      const err = await refusal(s.url(path), { allowHosts: ['127.0.0.1'] });
      assert.equal(err.code, 'too_large', path);
      assert.match(err.message, /larger than 1024 KB/);
    }
  });

  test('a body that stalls is cut off at the time cap', async () => {
    const err = await refusal(s.url('/slow'), { allowHosts: ['127.0.0.1'], timeoutMs: 300 });
    assert.equal(err.code, 'timeout');
    assert.match(err.message, /took longer than/);
  });

  test('an allowed host is read; no cookie or auth header is sent, even after a redirect', async () => {
    const seen = s.requests.length;
    const page = await guardedFetch(
      `http://intranet.test:${s.port}/to-page`,
      options({ allowHosts: ['intranet.test'] }),
    );
    assert.match(page.body.toString(), /hello/);
    assert.equal(page.url, `http://intranet.test:${s.port}/page`);
    for (const r of s.requests.slice(seen)) {
      assert.equal(r.headers.cookie, undefined);
      assert.equal(r.headers.authorization, undefined);
      assert.equal(r.headers['proxy-authorization'], undefined);
    }
  });

  test('the connection goes to the address that was checked, not to a second lookup', async () => {
    // The system cannot resolve rebind.test: only the pinned, checked address can be reached.
    const page = await guardedFetch(
      `http://rebind.test:${s.port}/page`,
      options({ allowHosts: ['127.0.0.0/8'] }),
    );
    assert.match(page.body.toString(), /hello/);
  });

  test('metadata addresses stay refused even inside an allowed range', async () => {
    const err = await refusal('http://169.254.169.254/', { allowHosts: ['169.254.0.0/16'] });
    assert.equal(err.code, 'forbidden_address');
  });

  test('the model sees a refusal as a clear tool result', async () => {
    const tool = fetchUrlTool({
      searxngUrl: '',
      maxResults: 5,
      searchTimeoutMs: 1000,
      fetch: { ...options(), maxChars: 1000 },
      extract: LIMITS,
      log: createLogger('silent'),
    });
    const msg = await tool.invoke({
      type: 'tool_call',
      id: 'c1',
      name: 'fetch_url',
      args: { url: 'http://169.254.169.254/latest/meta-data/' },
    });
    assert.match(
      String(msg.content),
      /^Could not read the page: Refused to read http:\/\/169\.254\.169\.254: .*metadata/,
    );
    assert.deepEqual(msg.artifact, { sources: [] });
  });
});
