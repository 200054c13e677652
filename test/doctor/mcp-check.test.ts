// The doctor's MCP check as an operator meets it, against a real SDK server: a reachable server
// shows its tools and how many ask for approval; one that does not answer is ✗ with what to
// check; one whose allow list matches nothing is a warning.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { McpServerSpec } from '../../src/agent/mcp/mcp-spec.ts';
import { mcpCheckGroups } from '../../src/doctor/mcp-check.ts';
import { runChecks } from '../../src/doctor/run-checks.ts';
import { type HttpTestServer, startHttpTestServer } from '../support/mcp-test-server.ts';
import { closedPort } from './setup.ts';

const spec = (over: Partial<McpServerSpec> & { name: string }): McpServerSpec => ({
  args: [],
  headers: {},
  env: {},
  connectTimeoutMs: 2000,
  callTimeoutMs: 2000,
  retryInitialMs: 1000,
  retryMaxMs: 60_000,
  allowTools: [],
  denyTools: [],
  private: false,
  approval: {},
  ...over,
});

describe('the MCP servers check', () => {
  let server: HttpTestServer;
  before(async () => {
    server = await startHttpTestServer();
  });
  after(async () => {
    await server?.close();
  });

  test('each declared server: its tools, down (✗ with the fix), or nothing allowed (⚠)', async () => {
    const down = `http://127.0.0.1:${await closedPort()}/mcp`;
    const results = await runChecks(
      mcpCheckGroups([
        spec({ name: 'jira', url: server.url }),
        spec({ name: 'wiki', url: down }),
        spec({ name: 'hr', url: server.url, allowTools: ['nope'] }),
      ]),
      { stepTimeoutMs: 3000, modelProbes: false, redact: (t) => t },
    );
    const by = new Map(results.map((r) => [r.name, r]));
    assert.equal(by.get('mcp.jira')?.status, 'ok');
    assert.match(by.get('mcp.jira')?.summary ?? '', /^6 tools \(1 ask for approval\)$/);
    assert.equal(by.get('mcp.wiki')?.status, 'fail');
    assert.match(by.get('mcp.wiki')?.summary ?? '', /did not answer/);
    assert.match(by.get('mcp.wiki')?.fix ?? '', /Streamable HTTP/);
    assert.equal(by.get('mcp.hr')?.status, 'warn');
    assert.match(by.get('mcp.hr')?.fix ?? '', /allowTools/);
  });
});
