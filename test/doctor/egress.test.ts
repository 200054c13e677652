// The egress check reads the configuration: it names where traffic goes and warns about model or
// store addresses outside the network, platform URLs off the platform's hosts, and proxies.
// IP literals only, so nothing is resolved or contacted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import { egressCheckGroup, isInternalAddress } from '../../src/doctor/egress-check.ts';
import type { CheckResult } from '../../src/model/check-result.ts';

async function egress(env: Record<string, string>): Promise<CheckResult> {
  const config = loadConfig({
    env: {
      SLACK_BOT_TOKEN: 'xoxb-1-2-egress',
      SLACK_APP_TOKEN: 'xapp-1-A1-2-egress',
      LLM_TEXT_BASE_URL: 'http://10.0.0.5:8000/v1',
      LLM_VISION_BASE_URL: 'http://10.0.0.6:8001/v1',
      ...env,
    },
  });
  const results: CheckResult[] = [];
  await egressCheckGroup(config).run(
    { signal: new AbortController().signal, stepTimeoutMs: 1000 },
    (r) => results.push(r),
  );
  assert.equal(results.length, 1);
  return results[0] as CheckResult;
}

test('model endpoints inside the network and Slack on its own hosts: ✓ with the list', async () => {
  const r = await egress({});
  assert.equal(r.status, 'ok');
  assert.match(r.summary, /10\.0\.0\.5 \(text model\)/);
  assert.match(r.summary, /slack\.com \(Slack Web API, Slack files\)/);
  assert.match(r.summary, /only a firewall enforces it/);
});

test('a model endpoint on a public address is a warning', async () => {
  const r = await egress({ LLM_TEXT_BASE_URL: 'http://203.0.113.9:8000/v1' });
  assert.equal(r.status, 'warn');
  assert.match(r.summary, /text model \(203\.0\.113\.9\) resolves to a public address/);
  assert.match(r.fix ?? '', /cannot see the network/);
});

test('a Slack API URL off Slack’s hosts is a warning', async () => {
  const r = await egress({ SLACK_API_URL: 'https://slack.example.net/api/' });
  assert.equal(r.status, 'warn');
  assert.match(r.summary, /Slack Web API points at slack\.example\.net/);
});

test('a proxy Node uses is named without its credentials', async () => {
  const r = await egress({
    HTTPS_PROXY: 'http://user:pw-in-proxy@proxy.corp:3128',
    NODE_USE_ENV_PROXY: '1',
  });
  assert.equal(r.status, 'warn');
  assert.match(r.summary, /go through the proxy proxy\.corp:3128/);
  assert.doesNotMatch(r.summary, /pw-in-proxy/);
});

test('internal addresses: loopback, RFC 1918, CGNAT, link-local, unique local', () => {
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.1.1',
    '::1',
    'fd00::1',
    '::ffff:10.0.0.1',
  ])
    assert.ok(isInternalAddress(a), a);
  for (const a of ['8.8.8.8', '172.32.0.1', '203.0.113.9', '2001:db8::1'])
    assert.ok(!isInternalAddress(a), a);
});
