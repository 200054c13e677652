// Sharing the GPU, at the model's edge: every call's tokens are booked as the server reported them,
// vLLM's priority goes only to a server with the priority policy, and cache_salt follows audiences.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import type { Config } from '../../src/config/schema.ts';
import { cacheSaltFor, modelCallTag } from '../../src/core/model-call-tags.ts';
import { UsageAccounting } from '../../src/core/usage-accounting.ts';
import { lastDays, usageCsv, usageReport } from '../../src/core/usage-report.ts';
import { priorityCheck } from '../../src/doctor/priority-check.ts';
import { ModelEndpoint } from '../../src/llm/model-endpoint.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createMetrics } from '../../src/log/metrics.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { withModelCall, withModelCallAs } from '../../src/scope/model-call.ts';
import { RedisUsageLedger } from '../../src/store/redis-usage-ledger.ts';
import { SqliteUsageLedger } from '../../src/store/sqlite-usage-ledger.ts';
import type { UsageLedger } from '../../src/store/usage-ledger.ts';
import { startOpenAIEmulator } from '../emulators/openai/index.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';

const log = createLogger('silent');
const DAY = '2026-12-01';
const now = () => Date.parse(`${DAY}T12:00:00Z`);

function ref(channelId: string, projectId = 'T1'): ThreadRef {
  return { platform: 'slack', projectId, channelId, sessionId: '1.0' };
}
const ask = (channel: string, person: string) => ({ ref: ref(channel), principal: person });

const lookup = tool(async () => 'found it', {
  name: 'lookup',
  description: 'looks something up',
  schema: z.object({ q: z.string() }),
});

async function mixedRun(ledger: UsageLedger, schedulingPolicy: 'fcfs' | 'priority' = 'fcfs') {
  const emu = await startOpenAIEmulator({ schedulingPolicy });
  const metrics = createMetrics();
  const usage = new UsageAccounting({ ledger, metrics, log, now });
  const llm = new ModelEndpoint({
    ...{ baseUrl: emu.baseURL, model: '', temperature: 0, maxReplyTokens: 256 },
    ...{ requestTimeoutMs: 10_000, maxRetries: 0, log, usage: usage.book },
    ...{ priority: 'auto' as const, cacheSalt: true },
  });
  const { chat } = await llm.resolve();
  const withTools = chat.bindTools([lookup]);
  const alice = modelCallTag(ask('C1', 'UA'), { priority: 'interactive' }, 'answer');
  const bob = modelCallTag(ask('C2', 'UB'), { priority: 'bulk' }, 'answer');
  emu.enqueue(
    { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] },
    { content: 'the answer is forty-two' },
    { content: 'a reply nobody asked for' },
    { content: '- summary point' },
    { content: '- compressed' },
  );
  await withModelCall(alice, async () => {
    await withTools.invoke([new HumanMessage('what is it?')]);
    await chat.invoke([new HumanMessage('and now?')]);
  });
  await withModelCall(bob, () => chat.invoke([new HumanMessage('chatter')]));
  const summarizer = await llm.variant(100);
  await withModelCall({ ...alice, kind: 'summary' }, () =>
    summarizer.invoke([new HumanMessage('sum up')]),
  );
  await withModelCall(alice, () =>
    withModelCallAs('compression', 'background', () =>
      summarizer.invoke([new HumanMessage('compress')]),
    ),
  );
  await usage.settled();
  return { emu, metrics, llm };
}

function sumReported(emu: {
  reportedUsage: { prompt_tokens: number; completion_tokens: number }[];
}) {
  return emu.reportedUsage.reduce(
    (s, u) => ({
      prompt: s.prompt + u.prompt_tokens,
      completion: s.completion + u.completion_tokens,
    }),
    { prompt: 0, completion: 0 },
  );
}

const chatBodies = (emu: Awaited<ReturnType<typeof mixedRun>>['emu']) =>
  emu.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body);

describe('usage accounting', () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
  });
  after(() => redis.stop());

  for (const kind of ['sqlite', 'redis'] as const) {
    it(`books every call as the server reported it (${kind})`, async () => {
      const ledger =
        kind === 'sqlite'
          ? new SqliteUsageLedger(':memory:')
          : new RedisUsageLedger(redis.url, `tm:test:${randomBytes(6).toString('hex')}`);
      const { emu, metrics } = await mixedRun(ledger);
      try {
        const reported = sumReported(emu);
        assert.equal(emu.reportedUsage.length, 5, 'every model call reported usage');
        const project = await ledger.totals('project', 'slack:T1', DAY, DAY);
        assert.deepEqual(project, { ...reported, calls: 5 });
        const rows = await ledger.rows(DAY, DAY);
        const kinds = rows.map((r) => `${r.person}/${r.kind}`).sort();
        assert.deepEqual(kinds, [
          'slack:UA/answer',
          'slack:UA/compression',
          'slack:UA/summary',
          'slack:UA/tool_round',
          'slack:UB/answer',
        ]);
        const bob = await ledger.totals('channel', 'slack:T1:C2', DAY, DAY);
        assert.deepEqual(bob, {
          prompt: emu.reportedUsage[2]?.prompt_tokens,
          completion: emu.reportedUsage[2]?.completion_tokens,
          calls: 1,
        });
        const report = usageReport(await ledger.rows(DAY, DAY), lastDays(7, now()));
        assert.equal(report.from, '2026-11-25');
        assert.deepEqual(
          report.people.map((p) => [p.id, p.calls]),
          [
            ['slack:UA', 4],
            ['slack:UB', 1],
          ],
        );
        assert.equal(report.tokens, reported.prompt + reported.completion);
        const csv = usageCsv(await ledger.rows(DAY, DAY, 'slack:T1')).split('\n');
        assert.equal(csv[0], 'day,project,channel,person,model,kind,prompt,completion,calls');
        assert.equal(csv.length, 7, 'a header, five rows and the final newline');
        await ledger.add({
          ...{ day: DAY, project: 'slack:T2', channel: 'slack:T2:C1', person: 'slack:UA' },
          ...{ model: 'm', kind: 'answer', prompt: 7, completion: 3 },
        });
        // Erasing a project takes its rows and sums; another project's stay.
        await ledger.eraseProject('slack:T1');
        assert.deepEqual(
          (await ledger.rows(DAY, DAY)).map((r) => r.project),
          ['slack:T2'],
        );
        assert.equal((await ledger.totals('project', 'slack:T1', DAY, DAY)).calls, 0);
        assert.equal((await ledger.totals('channel', 'slack:T1:C2', DAY, DAY)).calls, 0);
        assert.equal((await ledger.totals('project', 'slack:T2', DAY, DAY)).prompt, 7);
        const text = await metrics.registry.metrics();
        assert.match(
          text,
          /threadmind_usage_tokens_total\{project="slack:T1",kind="tool_round",direction="prompt"\} \d+/,
        );
        assert.doesNotMatch(text, /threadmind_usage_tokens_total\{[^}]*person/);
      } finally {
        await emu.close();
        await ledger.close();
      }
    });
  }

  it('a failing ledger never fails the call, and pauses budgets for a minute', async () => {
    const broken: UsageLedger = {
      add: async () => {
        throw new Error('disk full');
      },
      totals: async () => {
        throw new Error('disk full');
      },
      rows: async () => [],
      eraseProject: async () => undefined,
      close: async () => undefined,
    };
    const { emu } = await mixedRun(broken);
    await emu.close();
    const usage = new UsageAccounting({ ledger: broken, metrics: createMetrics(), log, now });
    assert.equal(usage.enforcing, true);
    assert.deepEqual(await usage.totals('person', 'slack:UA', DAY, DAY), {
      prompt: 0,
      completion: 0,
      calls: 0,
    });
    assert.equal(usage.enforcing, false);
  });
});

describe('priority and cache_salt', () => {
  it('a server without the priority policy gets no priority field, and every call succeeds', async () => {
    const { emu, llm } = await mixedRun(new SqliteUsageLedger(':memory:'), 'fcfs');
    try {
      assert.equal(llm.priorityPolicy, 'fcfs');
      const bodies = chatBodies(emu);
      // The probe (one token, priority 1) is the only request that carried one.
      assert.deepEqual(
        bodies.filter((b) => 'priority' in b).map((b) => b.max_tokens),
        [1],
      );
      assert.equal(emu.reportedUsage.length, 5);
    } finally {
      await emu.close();
    }
  });

  it('a server with the policy gets bulk 10, background 5, interactive none', async () => {
    const { emu, llm } = await mixedRun(new SqliteUsageLedger(':memory:'), 'priority');
    try {
      assert.equal(llm.priorityPolicy, 'priority');
      const bodies = chatBodies(emu).filter((b) => b.max_tokens !== 1);
      const byText = (t: string) =>
        bodies.find((b) => JSON.stringify(b.messages).includes(t))?.priority;
      assert.equal(byText('what is it?'), undefined);
      assert.equal(byText('chatter'), 10);
      assert.equal(byText('sum up'), undefined);
      assert.equal(byText('compress'), 5);
    } finally {
      await emu.close();
    }
  });

  it('cache_salt is equal within an audience and differs between audiences', async () => {
    const { emu } = await mixedRun(new SqliteUsageLedger(':memory:'));
    try {
      const salts = chatBodies(emu)
        .filter((b) => b.max_tokens !== 1)
        .map((b) => b.cache_salt);
      // Alice's four calls in C1 share one salt; Bob's in C2 has another.
      assert.equal(new Set([salts[0], salts[1], salts[3], salts[4]]).size, 1);
      assert.notEqual(salts[2], salts[0]);
      assert.match(String(salts[0]), /^[0-9a-f]{32}$/);
    } finally {
      await emu.close();
    }
    const members = cacheSaltFor(ask('C1', 'UA'), 'audience');
    assert.equal(cacheSaltFor(ask('C1', 'UZ'), 'audience'), members, 'same channel, same salt');
    assert.notEqual(cacheSaltFor(ask('C1', 'UA'), 'asker'), members);
    assert.notEqual(cacheSaltFor(ask('C1', 'UA'), 'asker'), cacheSaltFor(ask('C1', 'UZ'), 'asker'));
    assert.notEqual(
      cacheSaltFor({ ref: ref('C1', 'T2'), principal: 'UA' }, 'audience'),
      members,
      'another workspace, another salt',
    );
  });
});

describe('the doctor on the priority policy', () => {
  for (const policy of ['fcfs', 'priority'] as const) {
    it(`says whether it is on, and how to turn it on (${policy})`, async () => {
      const emu = await startOpenAIEmulator({ schedulingPolicy: policy });
      try {
        const config = { sharing: { priority: 'auto' }, secrets: {} } as unknown as Config;
        const ctx = { signal: new AbortController().signal, stepTimeoutMs: 5000 };
        const model = { id: 'qwen3-8b', maxModelLen: 32768 };
        const r = await priorityCheck(config, model, ctx, emu.baseURL);
        assert.equal(r.status, 'ok');
        if (policy === 'priority') assert.match(r.summary, /^on:/);
        else assert.match(r.summary, /start vLLM with --scheduling-policy priority/);
        const on = { ...config, sharing: { priority: 'on' } } as unknown as Config;
        const forced = await priorityCheck(on, model, ctx, emu.baseURL);
        assert.equal(forced.status, policy === 'priority' ? 'ok' : 'fail');
      } finally {
        await emu.close();
      }
    });
  }
});
