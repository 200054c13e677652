// Token budgets: what the asker is told (which budget, how much, when it resets), the warning at
// 80 %, the exemption, a channel's own budget, and the bad input around them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStore } from '../../src/compose/create-store.ts';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import type { SharingSettings } from '../../src/config/sharing-config.ts';
import { BudgetGuard, budgetMessages } from '../../src/core/budgets.ts';
import { ChannelSettingsService } from '../../src/core/channel-settings.ts';
import { UsageAccounting } from '../../src/core/usage-accounting.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createMetrics } from '../../src/log/metrics.ts';
import { SqliteUsageLedger } from '../../src/store/sqlite-usage-ledger.ts';
import type { UsageLedger } from '../../src/store/usage-ledger.ts';

const log = createLogger('silent');
const NOW = Date.parse('2026-12-01T15:30:00Z');
const config = loadConfig({ env: {} });

function budgets(over: Partial<SharingSettings['budgets']> = {}): SharingSettings['budgets'] {
  return { ...config.sharing.budgets, ...over };
}

function setup(
  b: SharingSettings['budgets'],
  ledger: UsageLedger = new SqliteUsageLedger(':memory:'),
) {
  const usage = new UsageAccounting({ ledger, metrics: createMetrics(), log, now: () => NOW });
  const guard = new BudgetGuard({
    budgets: b,
    exempt: new Set(['slack:UADMIN']),
    usage,
    now: () => NOW,
  });
  const spend = async (person: string, channel: string, tokens: number, day = '2026-12-01') =>
    ledger.add({
      ...{ day, project: 'slack:T1', channel: `slack:T1:${channel}`, person: `slack:${person}` },
      ...{ model: 'm', kind: 'answer', prompt: tokens - 10, completion: 10 },
    });
  return { guard, spend };
}

const msg = (person: string, channel = 'C1') => ({
  ref: { platform: 'slack' as const, projectId: 'T1', channelId: channel, sessionId: '1.0' },
  principal: person,
});

describe('token budgets', () => {
  it('over a person’s daily budget: says which budget, how much, and when it resets', async () => {
    const { guard, spend } = setup(budgets({ person: { daily: 1000, monthly: 0 } }));
    await spend('UA', 'C1', 1200);
    const v = await guard.check(msg('UA'), undefined);
    assert.equal(v.status, 'over');
    assert.ok(v.status === 'over');
    assert.equal(
      budgetMessages.over(v.hit),
      "I can't answer this one: your daily token budget is used up (1,200 of 1,000 tokens). It resets 2026-12-02 00:00 UTC.",
    );
    assert.equal((await guard.check(msg('UB'), undefined)).status, 'ok', 'another person is fine');
  });

  it('a monthly budget counts the whole month and resets on the 1st', async () => {
    const { guard, spend } = setup(budgets({ project: { daily: 0, monthly: 5000 } }));
    await spend('UA', 'C1', 3000, '2026-11-30');
    await spend('UB', 'C2', 3000, '2026-12-01');
    assert.equal(
      (await guard.check(msg('UC', 'C3'), undefined)).status,
      'ok',
      'November does not count',
    );
    await spend('UB', 'C2', 2500, '2026-12-01');
    const v = await guard.check(msg('UC', 'C3'), undefined);
    assert.ok(v.status === 'over');
    assert.match(
      budgetMessages.over(v.hit),
      /this workspace's monthly token budget .* resets 2027-01-01 00:00 UTC/,
    );
  });

  it('warns once at 80 %, then answers without warning again', async () => {
    const { guard, spend } = setup(budgets({ channel: { daily: 1000, monthly: 0 } }));
    await spend('UA', 'C1', 850);
    const first = await guard.check(msg('UA'), undefined);
    assert.ok(first.status === 'warn');
    assert.match(
      budgetMessages.warn(first.hit),
      /this channel's daily token budget is 85 % used \(850 of 1,000 tokens\)/,
    );
    assert.equal((await guard.check(msg('UB'), undefined)).status, 'ok', 'warned once');
  });

  it('warns once per budget and period across processes (the mark is in the shared store)', async () => {
    const url = process.env.TEST_REDIS_URL;
    if (!url) throw new Error('TEST_REDIS_URL is required');
    const store = await createStore(url);
    const ledger = new SqliteUsageLedger(':memory:');
    const channel = `C${Date.now().toString(36)}${process.pid}`;
    try {
      // Two workers: each its own guard, one store between them.
      const guards = [0, 1].map(
        () =>
          new BudgetGuard({
            budgets: budgets({ channel: { daily: 1000, monthly: 0 } }),
            exempt: new Set(),
            usage: new UsageAccounting({ ledger, metrics: createMetrics(), log, now: () => NOW }),
            marks: store,
            now: () => NOW,
          }),
      );
      await ledger.add({
        ...{ day: '2026-12-01', project: 'slack:T1', channel: `slack:T1:${channel}` },
        ...{ person: 'slack:UA', model: 'm', kind: 'answer', prompt: 840, completion: 10 },
      });
      const seen = await Promise.all(
        [...guards, ...guards].map((g) => g.check(msg('UA', channel), undefined)),
      );
      assert.equal(seen.filter((v) => v.status === 'warn').length, 1, 'one warning in all');
      assert.equal((await guards[1]?.check(msg('UB', channel), undefined))?.status, 'ok');
    } finally {
      await store.close();
    }
  });

  it("the platform's own admins are exempt when configured so; the platform is asked only once a budget is hit", async () => {
    const ledger = new SqliteUsageLedger(':memory:');
    const usage = new UsageAccounting({ ledger, metrics: createMetrics(), log, now: () => NOW });
    const guard = (platformAdminsExempt: boolean) =>
      new BudgetGuard({
        ...{ budgets: budgets({ person: { daily: 1000, monthly: 0 } }), exempt: new Set() },
        ...{ usage, platformAdminsExempt, now: () => NOW },
      });
    let asked = 0;
    const admin = async () => {
      asked += 1;
      return true;
    };
    assert.equal((await guard(true).check(msg('UA'), undefined, admin)).status, 'ok');
    assert.equal(asked, 0, 'nothing used: the platform is not asked');
    await ledger.add({
      ...{ day: '2026-12-01', project: 'slack:T1', channel: 'slack:T1:C1', person: 'slack:UA' },
      ...{ model: 'm', kind: 'answer', prompt: 1500, completion: 0 },
    });
    assert.equal((await guard(true).check(msg('UA'), undefined, admin)).status, 'ok');
    assert.equal(asked, 1);
    assert.equal((await guard(false).check(msg('UA'), undefined, admin)).status, 'over');
    const failing = async (): Promise<boolean> => {
      throw new Error('users.info failed');
    };
    assert.equal(
      (await guard(true).check(msg('UA'), undefined, failing)).status,
      'over',
      'a platform that cannot say holds the asker to the budget',
    );
  });

  it('exempt people are never held to budgets', async () => {
    const { guard, spend } = setup(budgets({ person: { daily: 10, monthly: 10 } }));
    await spend('UADMIN', 'C1', 100);
    assert.equal((await guard.check(msg('UADMIN'), undefined)).status, 'ok');
  });

  it('a channel’s own budget only tightens the configured one', async () => {
    const { guard, spend } = setup(
      budgets({ channels: { 'slack:T1:C1': { daily: 1000, monthly: 0 } } }),
    );
    await spend('UA', 'C1', 600);
    assert.equal(
      (await guard.check(msg('UA'), { dailyTokenBudget: 500, monthlyTokenBudget: 0 })).status,
      'over',
    );
    assert.equal(
      (await guard.check(msg('UA'), { dailyTokenBudget: 5000, monthlyTokenBudget: 0 })).status,
      'ok',
    );
    assert.deepEqual(
      guard.limits(msg('UA'), { dailyTokenBudget: 5000, monthlyTokenBudget: 0 }).channel.budget,
      {
        daily: 1000,
        monthly: 0,
      },
    );
  });

  it('a failing usage store never refuses: budgets pause', async () => {
    const broken: UsageLedger = {
      add: async () => undefined,
      totals: async () => {
        throw new Error('redis down');
      },
      rows: async () => [],
      eraseProject: async () => undefined,
      close: async () => undefined,
    };
    const { guard } = setup(budgets({ person: { daily: 1, monthly: 1 } }), broken);
    assert.equal((await guard.check(msg('UA'), undefined)).status, 'ok');
  });
});

describe('bad budgets', () => {
  it('a malformed budget in config is listed with the other config errors', () => {
    let problems: string[] = [];
    try {
      loadConfig({
        env: { PORT: 'eighty' },
        overrides: { sharing: { budgets: { person: { daily: -5, monthly: 'lots' } } } },
      });
    } catch (err) {
      if (err instanceof ConfigError) problems = err.problems;
    }
    assert.ok(
      problems.some((p) => /PORT/.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => /sharing\.budgets\.person\.daily/.test(p)),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => /sharing\.budgets\.person\.monthly/.test(p)),
      problems.join('\n'),
    );
  });

  it('negative or absurd budgets are refused in the settings form with a field error', async () => {
    const store = await createStore('sqlite://:memory:');
    try {
      const s = new ChannelSettingsService({
        store,
        defaults: config.channels.defaults,
        overrides: {},
        models: async () => [],
      });
      assert.deepEqual(await s.validate({ dailyTokenBudget: -1 }), {
        dailyTokenBudget: { kind: 'range', min: 0, max: 1e9 },
      });
      assert.deepEqual(await s.validate({ monthlyTokenBudget: 1e12 }), {
        monthlyTokenBudget: { kind: 'range', min: 0, max: 1e9 },
      });
      assert.equal(await s.validate({ dailyTokenBudget: 50_000 }), undefined);
    } finally {
      await store.close();
    }
  });
});
