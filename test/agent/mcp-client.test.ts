// The MCP client against a real SDK server, over Streamable HTTP and over stdio: tools listed
// (namespaced, allow/deny), called inside a turn's scope, errors and time-outs as tool errors the
// model reads, list_changed picked up, a server that is down costs only its own tools.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { McpHub } from '../../src/agent/mcp/mcp-hub.ts';
import { Reconnector } from '../../src/agent/mcp/mcp-retry.ts';
import type { McpServerSpec } from '../../src/agent/mcp/mcp-spec.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { runInScope, type TurnScope } from '../../src/scope/scope.ts';
import { type HttpTestServer, startHttpTestServer } from '../support/mcp-test-server.ts';

const limits = { maxDescriptionChars: 200, maxSchemaChars: 2000, maxResultChars: 2000 };

function spec(over: Partial<McpServerSpec> & { name: string }): McpServerSpec {
  return {
    args: [],
    headers: {},
    env: {},
    connectTimeoutMs: 5000,
    callTimeoutMs: 5000,
    retryInitialMs: 1000,
    retryMaxMs: 60_000,
    allowTools: [],
    denyTools: [],
    private: false,
    approval: {},
    ...over,
  };
}

const scope: TurnScope = {
  ref: { platform: 'web', projectId: 'local', channelId: 'chat', sessionId: 's1' },
  principal: 'u1',
  owners: [],
  images: [],
  traceId: 't1',
  toolGate: async () => ({ run: true }),
};

/** Calls a tool the way LangGraph's ToolNode does, errors included, as the model would read it. */
async function call(t: StructuredToolInterface | undefined, args: Record<string, unknown>) {
  assert.ok(t, 'the tool is offered');
  return runInScope(scope, async () => {
    try {
      return String(await t.invoke(args));
    } catch (err) {
      return `Error: ${(err as Error).message}`;
    }
  });
}

/** A server's answer as the model sees it: quoted data. */
const inData = (tool: string, text: string) => `<data source="${tool}">\n${text}\n</data>`;

const byName = (tools: StructuredToolInterface[], name: string) =>
  tools.find((t) => t.name === name);

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check());
}

describe('MCP client over Streamable HTTP', () => {
  let server: HttpTestServer;
  let hub: McpHub;
  before(async () => {
    server = await startHttpTestServer();
    hub = new McpHub({
      servers: [spec({ name: 'test', url: server.url, callTimeoutMs: 300, denyTools: ['inject'] })],
      limits,
      log: silentLogger(),
    });
    await hub.start();
  });
  after(async () => {
    await hub.close();
    await server.close();
  });

  test('lists the tools namespaced by server, without the denied ones; none for another server', () => {
    const names = hub.toolsFor(['test']).map((t) => t.name);
    assert.ok(names.includes('test__echo'));
    assert.ok(names.includes('test__delete_everything'));
    assert.ok(!names.includes('test__inject'));
    assert.deepEqual(hub.toolsFor(['other']), []);
  });

  test('a call returns the server’s answer', async () => {
    assert.equal(
      await call(byName(hub.toolsFor(['test']), 'test__echo'), { text: 'hi' }),
      inData('test__echo', 'echo: hi'),
    );
  });

  test('an error result and a time-out become tool errors; the next call still works', async () => {
    const tools = hub.toolsFor(['test']);
    assert.match(await call(byName(tools, 'test__fail'), {}), /^Error: [\s\S]*the tracker is down/);
    assert.match(
      await call(byName(tools, 'test__slow'), { ms: 2000 }),
      /^Error: [\s\S]*did not answer within 300 ms/,
    );
    assert.equal(
      await call(byName(tools, 'test__echo'), { text: 'again' }),
      inData('test__echo', 'echo: again'),
    );
  });

  test('a tool added on the server is offered after list_changed', async () => {
    await call(byName(hub.toolsFor(['test']), 'test__add_tool'), {});
    await until(() => byName(hub.toolsFor(['test']), 'test__late') !== undefined);
    assert.equal(
      await call(byName(hub.toolsFor(['test']), 'test__late'), {}),
      inData('test__late', 'late here'),
    );
  });
});

describe('MCP client over stdio', () => {
  const script = fileURLToPath(new URL('../support/mcp-test-server.ts', import.meta.url));
  let hub: McpHub;
  before(async () => {
    hub = new McpHub({
      servers: [
        spec({
          name: 'local',
          command: process.execPath,
          args: [script, '--stdio'],
          allowTools: ['echo', 'add_tool', 'late'],
        }),
        spec({ name: 'down', url: 'http://127.0.0.1:9/mcp', connectTimeoutMs: 500 }),
      ],
      limits,
      log: silentLogger(),
    });
    await hub.start();
  });
  after(async () => {
    await hub.close();
  });

  test('lists only the allowed tools and calls them', async () => {
    assert.deepEqual(
      hub
        .toolsFor(['local'])
        .map((t) => t.name)
        .sort(),
      ['local__add_tool', 'local__echo'],
    );
    assert.equal(
      await call(byName(hub.toolsFor(['local']), 'local__echo'), { text: 'over stdio' }),
      inData('local__echo', 'echo: over stdio'),
    );
  });

  test('list_changed over stdio adds the new tool', async () => {
    await call(byName(hub.toolsFor(['local']), 'local__add_tool'), {});
    await until(() => byName(hub.toolsFor(['local']), 'local__late') !== undefined);
  });

  test('a server that is down has no tools; the others go on', () => {
    assert.deepEqual(hub.toolsFor(['down']), []);
    assert.ok(hub.toolsFor(['local', 'down']).length > 0);
  });
});

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('MCP client: a server that is down, at start or later', () => {
  let hub: McpHub;
  let port: number;
  let server: HttpTestServer | undefined;
  before(async () => {
    port = await freePort();
    hub = new McpHub({
      servers: [
        spec({
          name: 'late',
          url: `http://127.0.0.1:${port}/mcp`,
          connectTimeoutMs: 1000,
          retryInitialMs: 20,
          retryMaxMs: 200,
        }),
      ],
      limits,
      log: silentLogger(),
    });
    await hub.start();
  });
  after(async () => {
    await hub.close();
    await server?.close();
  });

  test('down at start: no tools; when it comes up its tools are listed and calls work', async () => {
    assert.deepEqual(hub.toolsFor(['late']), []);
    server = await startHttpTestServer(port);
    await until(() => byName(hub.toolsFor(['late']), 'late__echo') !== undefined);
    assert.equal(
      await call(byName(hub.toolsFor(['late']), 'late__echo'), { text: 'up now' }),
      inData('late__echo', 'echo: up now'),
    );
  });

  test('gone at call time: the model reads that the server is not reachable; back, it works again', async () => {
    await server?.close();
    server = undefined;
    const echo = byName(hub.toolsFor(['late']), 'late__echo');
    const first = await call(echo, { text: 'anyone?' });
    assert.match(first, /^Error: .*late tool server/);
    assert.match(first, /(failed during the call|not reachable right now)/);
    assert.match(
      await call(echo, { text: 'still?' }),
      /not reachable right now .*the call did not run/,
    );
    server = await startHttpTestServer(port);
    await until(() => hub.connection('late')?.connected === true);
    assert.equal(
      await call(byName(hub.toolsFor(['late']), 'late__echo'), { text: 'back' }),
      inData('late__echo', 'echo: back'),
    );
  });
});

describe('MCP reconnect backoff', () => {
  test('doubles from the first delay up to the cap, half of it random', () => {
    const r = new Reconnector({ initialMs: 100, maxMs: 1000, random: () => 1 }, async () => true);
    assert.deepEqual(
      [0, 1, 2, 3, 4, 10].map((n) => r.delayOf(n)),
      [100, 200, 400, 800, 1000, 1000],
    );
    const low = new Reconnector({ initialMs: 100, maxMs: 1000, random: () => 0 }, async () => true);
    assert.equal(low.delayOf(1), 100);
  });

  test('keeps trying until an attempt succeeds, one at a time; close stops it', async () => {
    const queued: (() => void)[] = [];
    const timers = { set: (fn: () => void) => queued.push(fn), clear: () => undefined };
    let attempts = 0;
    const r = new Reconnector({ initialMs: 10, maxMs: 100, timers }, async () => ++attempts >= 3);
    r.schedule();
    r.schedule();
    assert.equal(queued.length, 1, 'one attempt planned at a time');
    for (let i = 0; i < 3; i++) {
      queued.shift()?.();
      await new Promise((res) => setImmediate(res));
    }
    assert.equal(attempts, 3);
    assert.equal(queued.length, 0, 'nothing planned after a success');
    r.close();
    r.schedule();
    assert.equal(queued.length, 0, 'closed: nothing planned');
  });
});
