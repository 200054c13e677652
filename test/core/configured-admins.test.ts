// The bot's configured admins (the platform's `admins` handed to `attach`) may what a project's
// admins may on any platform, whatever the platform says of them; forgetting someone else's thread
// stays the platform's to allow; everyone else gets the platform's answer.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import { ChannelSettingsService } from '../../src/core/channel-settings.ts';
import { Conversation } from '../../src/core/conversation.ts';
import { withConfiguredAdmins } from '../../src/core/interactions/configured-admins.ts';
import { SessionState } from '../../src/core/session-state.ts';
import type { TurnRunner } from '../../src/core/turn-runner.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createMetrics } from '../../src/log/metrics.ts';
import type { Actor, Right } from '../../src/model/interaction.ts';
import { SessionHistory } from '../../src/store/session-history.ts';
import { SessionLock } from '../../src/store/session-lock.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { MockPort, REF, TO } from '../support/mock-port.ts';

const store = new SqliteStore(':memory:');
after(() => store.close());

/** A person the platform grants nothing. */
const nobody = (id: string): Actor => ({ id, may: async () => false });

function conversation(admins: readonly string[]) {
  const state = new SessionState({
    store,
    history: new SessionHistory(store, 100),
    memory: { forget: async () => undefined, markSummaryStale: async () => undefined },
    lock: new SessionLock(store, { ttlMs: 3000, pollMs: 5, lostReason: () => new Error('lost') }),
    dedupeTtlMs: 60_000,
  });
  const core = new Conversation({
    botName: 'threadmind',
    runner: {} as TurnRunner,
    state,
    metrics: createMetrics(),
    log: silentLogger(),
    settings: new ChannelSettingsService({
      store,
      defaults: loadConfig({ env: {} }).channels.defaults,
      overrides: {},
      models: async () => [],
    }),
    lockWaitMs: 1000,
    interactions: { store, ttlMs: 600_000 },
  });
  core.attach(new MockPort(), {
    projectNoun: 'workspace',
    settingsAdmins: 'admins',
    admins,
    updateIntervalMs: 10,
    nativeStreaming: false,
    thinkingText: 'is thinking…',
  });
  return core;
}

describe("the bot's configured admins", () => {
  test('may change a channel’s settings where the platform says they may not; others are refused', async () => {
    const core = conversation(['UBOSS']);
    const open = (who: string) =>
      core.interact({
        kind: 'start',
        flow: 'settings',
        actor: nobody(who),
        place: { ref: REF, to: TO },
        traceId: 't',
      });
    assert.equal((await open('UBOSS')).show[0]?.kind, 'form');
    const refused = await open('UOTHER');
    assert.equal(refused.outcome, 'refused');
    assert.equal(refused.show[0]?.kind, 'notice');
  });

  test('have every right but forgetting a thread, which stays the platform’s answer', async () => {
    const asked: Right[] = [];
    const platform: Actor = {
      id: 'UBOSS',
      may: async (r) => {
        asked.push(r);
        return false;
      },
    };
    const boss = withConfiguredAdmins(platform, ['UBOSS']);
    assert.equal(await boss.may('admin'), true);
    assert.equal(await boss.may('manageChannel', REF), true);
    assert.equal(await boss.may('forgetThread', REF), false);
    assert.deepEqual(asked, ['forgetThread']);
    assert.equal(withConfiguredAdmins(platform, ['USOMEONE']), platform);
  });
});
