// The team's tools: what a call costs on the bot's side, and how soon a click resumes the turn.
// 1. An MCP tool call through the hub (the model's tool: scope, gate, SDK client, loopback
//    Streamable HTTP) minus the server handler's own time, beside the bare SDK client's call.
// 2. Click → turn resumed: Slack (Bolt, emulator) "Approve once" pressed → the resumed turn's
//    request reaches the model; in one process (role all), and across roles on Redis (split
//    roles: the ingress takes the click and queues the resumed turn, a worker runs it).
import { McpHub } from '../src/agent/mcp/mcp-hub.ts';
import { createLogger } from '../src/log/logger.ts';
import { runInScope } from '../src/scope/scope.ts';
import { CoreWatch } from '../test/contract/flow-driver.ts';
import { startHarness, startWorkerBeside } from '../test/support/harness.ts';
import { startHttpTestServer } from '../test/support/mcp-test-server.ts';
import { startPrivateRedis } from '../test/support/redis-server.ts';
import { fmt, summary } from './stats.ts';

const CALLS = 500;
const CLICKS = 30;

async function callOverhead(): Promise<string[]> {
  const server = await startHttpTestServer();
  const hub = new McpHub({
    servers: [
      {
        name: 'b',
        url: server.url,
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
      },
    ],
    limits: { maxDescriptionChars: 600, maxSchemaChars: 4000, maxResultChars: 12000 },
    log: createLogger('silent', process.stderr as never),
  });
  await hub.start();
  const tool = hub.toolsFor(['b']).find((t) => t.name === 'b__echo');
  const conn = hub.connection('b');
  if (!tool || !conn) throw new Error('mcp bench: no echo tool');
  const scope = {
    ref: { platform: 'web' as const, projectId: 'local', channelId: 'chat', sessionId: 's' },
    principal: 'u',
    owners: [],
    images: [],
    traceId: 't',
    toolGate: async () => ({ run: true as const }),
  };
  const viaTool: number[] = [];
  const viaSdk: number[] = [];
  for (let i = 0; i < CALLS + 50; i++) {
    const h0 = server.state.handlerMs.length;
    const t0 = performance.now();
    await runInScope(scope, () => tool.invoke({ text: `n${i}` }));
    const total = performance.now() - t0;
    const handler = server.state.handlerMs[h0] ?? 0;
    const t1 = performance.now();
    await conn.call('echo', { text: `m${i}` });
    const sdk = performance.now() - t1 - (server.state.handlerMs[h0 + 1] ?? 0);
    if (i >= 50) {
      viaTool.push(total - handler);
      viaSdk.push(sdk);
    }
  }
  await hub.close();
  await server.close();
  const a = summary(viaTool);
  const b = summary(viaSdk);
  return [
    `MCP call, bot side (model's tool → SDK → loopback HTTP, minus the server handler), n=${a.n}: p50 ${fmt(a.p50)}, p99 ${fmt(a.p99)}`,
    `  the same call on the connection alone (no LangChain tool, scope, gate), n=${b.n}: p50 ${fmt(b.p50)}, p99 ${fmt(b.p99)}`,
  ];
}

async function clickToResume(split: boolean): Promise<string> {
  const server = await startHttpTestServer();
  const redis = split ? await startPrivateRedis() : undefined;
  const channel = 'CBENCH0001';
  const h = await startHarness({
    ...(redis ? { env: { THREADMIND_ROLE: 'ingress', STORE_URL: redis.url } } : {}),
    overrides: {
      llm: { maxRetries: 0 },
      ...(redis ? { scale: { queue: { name: `mcp-bench-${process.pid}` } } } : {}),
      mcp: { servers: [{ name: 'test', url: server.url }] },
      channels: { overrides: { [`slack:T0EMU00001:${channel}`]: { mcpServers: 'test' } } },
    },
  });
  const watch = new CoreWatch();
  watch.watch(h.app.core);
  const worker = redis ? await startWorkerBeside(h.config) : undefined;
  if (worker) watch.watch(worker.core);
  const bot = h.slack.botUserId;
  const times: number[] = [];
  const call = { name: 'test__delete_everything', arguments: { project: 'B' } };
  for (let i = 0; i < CLICKS; i++) {
    h.llm.enqueue({ toolCalls: [call] }, { content: 'waits' });
    const { ts } = await h.slack.postUserMessage({
      channel,
      user: 'U0BENCH001',
      text: `<@${bot}> go ${i}`,
    });
    await watch.handled(ts);
    const card = h.slack
      .messages(channel, ts)
      .findLast((m) => JSON.stringify(m.blocks ?? []).includes('tm:0'));
    if (!card) throw new Error('mcp bench: no card');
    const seen = h.llm.requests.length;
    h.llm.enqueue({ content: 'done' });
    const t0 = performance.now();
    await h.slack.pressButton({ channel, ts: card.ts, user: 'U0BENCH001', actionId: 'tm:0' });
    await h.slack.waitFor(() => (h.llm.requests.length > seen ? true : undefined));
    times.push(performance.now() - t0);
    await h.slack.waitFor(
      () => h.slack.messages(channel, ts).some((m) => m.text === 'done') || undefined,
    );
  }
  await worker?.stop();
  await h.close();
  await server.close();
  await redis?.stop();
  const s = summary(times);
  const where = split
    ? 'across roles (ingress takes the click, a worker runs the queued turn; Redis)'
    : 'one process (role all)';
  return `click "Approve once" → resumed turn's model request, ${where}, Slack emulator, n=${s.n}: p50 ${fmt(s.p50)}, p99 ${fmt(s.p99)}`;
}

export async function benchMcp(): Promise<string[]> {
  return [...(await callOverhead()), await clickToResume(false), await clickToResume(true)];
}
