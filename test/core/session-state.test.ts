// Session state as both platforms use it: participation, de-duplication, forgetting, and a lock
// that tells its holder when it is lost.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, describe, test } from 'node:test';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { loadConfig } from '../../src/config/load-config.ts';
import { ChannelSettingsService } from '../../src/core/channel-settings.ts';
import { Conversation } from '../../src/core/conversation.ts';
import { lockLostError, SessionState } from '../../src/core/session-state.ts';
import { ThreadContext } from '../../src/core/thread-context.ts';
import type { TurnRunner } from '../../src/core/turn-runner.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createMetrics } from '../../src/log/metrics.ts';
import { ThreadmindError } from '../../src/model/errors.ts';
import type { Handled } from '../../src/model/handled.ts';
import type { InboundMessage } from '../../src/model/incoming.ts';
import { sessionKey } from '../../src/model/thread-ref.ts';
import { SessionHistory } from '../../src/store/session-history.ts';
import { SessionLock } from '../../src/store/session-lock.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { MockPort, REF, TO } from '../support/mock-port.ts';

const store = new SqliteStore(':memory:');
after(() => store.close());

function state() {
  const history = new SessionHistory(store, 100);
  const forgotten: string[] = [];
  const removed: string[] = [];
  const s = new SessionState({
    store,
    history,
    memory: {
      forget: async (key) => void forgotten.push(key),
      markSummaryStale: async () => undefined,
    },
    lock: new SessionLock(store, { ttlMs: 3000, pollMs: 5, lostReason: lockLostError }),
    ingestor: { removeOwner: async (o) => void removed.push(o.key) },
    dedupeTtlMs: 60_000,
  });
  return { s, history, forgotten, removed };
}

describe('session state', () => {
  test('a delivery is fresh once; any known key makes a repeat', async () => {
    const { s } = state();
    assert.equal(await s.claimOnce(['ev:1', 'msg:1']), 'new');
    assert.equal(await s.claimOnce(['ev:1', 'msg:1']), 'queued', 'retried event');
    assert.equal(await s.claimOnce(['ev:2', 'msg:1']), 'queued', 'same message, another event');
  });

  test('handed off: a repeat is pending until the first copy is queued, then queued', async () => {
    const { s } = state();
    assert.equal(await s.claimOnce(['ev:3', 'msg:3'], 5000), 'new');
    assert.equal(await s.claimOnce(['ev:3', 'msg:3'], 5000), 'pending', 'not queued yet');
    assert.equal(await s.claimOnce(['ev:4', 'msg:3'], 5000), 'pending', 'another event');
    await s.confirmClaims(['ev:3', 'msg:3']);
    assert.equal(await s.claimOnce(['ev:3', 'msg:3'], 5000), 'queued', 'queued by then');
    assert.equal(await s.claimOnce(['ev:5', 'msg:3'], 5000), 'queued', 'another event, queued');
  });

  test('forgetting clears history, participation, memory and the session files', async () => {
    const { s, history, forgotten, removed } = state();
    const ref = { ...REF, sessionId: 'forget.1' };
    await history.save(sessionKey(ref), [new HumanMessage('hi'), new AIMessage('hello')]);
    await s.participate(ref);
    assert.equal(await s.isParticipating(ref), true);
    await s.forget(ref);
    assert.equal(await s.isParticipating(ref), false);
    assert.deepEqual(await history.load(sessionKey(ref)), []);
    assert.deepEqual(forgotten, [sessionKey(ref)]);
    assert.deepEqual(removed, [sessionKey(ref)]);
  });

  test('a holder whose lock was taken over is told through its signal', async () => {
    const { s } = state();
    const ref = { ...REF, sessionId: 'lock.1' };
    const held = await s.lock(ref, 1000);
    // Another replica takes the claim (as after an expiry); the next renewal finds it gone.
    const key = `lock:${sessionKey(ref)}`;
    const was = await store.leases.holder(key);
    await store.leases.release(key, was?.holder ?? '', was?.token ?? 0);
    assert.ok(await store.leases.acquire(key, 'other-replica', 3000));
    await once(held.signal, 'abort');
    assert.ok(ThreadmindError.isInstance(held.signal.reason));
    assert.equal((held.signal.reason as ThreadmindError).code, 'lock_lost');
    await held.release();
    assert.equal((await store.leases.holder(key))?.holder, 'other-replica', 'not released');
  });
});

describe('conversation rules', () => {
  function conversation(port: MockPort) {
    const { s } = state();
    const turns: string[] = [];
    const runner = {
      submit: async (m: InboundMessage) => {
        turns.push(m.text);
        return { status: 'answered', text: 'ok' } as const;
      },
      summarize: async () => ({ status: 'answered', text: 'sum' }) as const,
    } as unknown as TurnRunner;
    const core = new Conversation({
      botName: 'threadmind',
      runner,
      state: s,
      metrics: createMetrics(),
      log: silentLogger(),
      settings: new ChannelSettingsService({
        store,
        defaults: loadConfig({ env: {} }).channels.defaults,
        overrides: {},
        models: async () => [],
      }),
      threadContext: new ThreadContext({ store, maxMessages: 100, log: silentLogger() }),
      lockWaitMs: 1000,
      interactions: { store, ttlMs: 600_000 },
    });
    core.attach(port, {
      projectNoun: 'workspace',
      settingsAdmins: 'admins',
      updateIntervalMs: 10,
      nativeStreaming: false,
      thinkingText: 'is thinking…',
    });
    return { core, turns, s };
  }
  let seq = 0;
  const message = (over: Partial<InboundMessage>): InboundMessage => {
    const id = `m.${++seq}`;
    return {
      ref: REF,
      to: TO,
      principal: 'U1',
      text: 'hello',
      messageId: id,
      receivedAt: 0,
      traceId: 't',
      addressed: 'mention',
      dedupe: [`test:${id}`],
      ...over,
    };
  };

  test('a message in a thread the bot is not part of is ignored; after a mention it is answered', async () => {
    const port = new MockPort();
    const { core, turns } = conversation(port);
    const ref = { ...REF, sessionId: `amb.${seq}` };
    const to = { ref, context: {} };
    const ignored: Handled = await core.receiveMessage(message({ ref, to, addressed: 'ambient' }));
    assert.equal(ignored.status, 'ignored');
    await core.receiveMessage(message({ ref, to, text: 'first' }));
    await core.receiveMessage(message({ ref, to, addressed: 'ambient', text: 'follow-up' }));
    assert.deepEqual(turns, ['first', 'follow-up']);
  });

  test('reply modes: mention ignores follow-ups, thread leaves those naming others, all answers the channel', async () => {
    const port = new MockPort();
    const { core, turns } = conversation(port);
    const admin = { id: 'UADMIN', may: async () => true };
    const at = (channelId: string, sessionId: string) => {
      const ref = { ...REF, channelId, sessionId };
      return { ref, to: { ref, context: {} } };
    };
    const set = (channelId: string, mode: string) =>
      core.interact({
        kind: 'start',
        flow: 'settings',
        actor: admin,
        place: at(channelId, 'x'),
        values: { reply_mode: mode },
        traceId: 't',
      });
    await set('CM', 'mention');
    await core.receiveMessage(message({ ...at('CM', 'm.1'), text: 'start' }));
    const unmentioned = await core.receiveMessage(
      message({ ...at('CM', 'm.1'), addressed: 'ambient', text: 'more' }),
    );
    assert.equal(unmentioned.status, 'ignored', 'mode mention');

    await core.receiveMessage(message({ ...at('CT', 't.1'), text: 'start thread' }));
    const forOthers = await core.receiveMessage(
      message({ ...at('CT', 't.1'), addressed: 'ambient', text: '@Jo look', mentionsOthers: true }),
    );
    assert.equal(forOthers.status, 'ignored', 'mode thread, a message for someone else');
    const topLevel = await core.receiveMessage(
      message({ ...at('CT', 't.2'), addressed: 'ambient', text: 'chatter', topLevel: true }),
    );
    assert.equal(topLevel.status, 'ignored', 'mode thread, top-level chatter');

    await set('CA', 'all');
    const support = await core.receiveMessage(
      message({ ...at('CA', 'a.1'), addressed: 'ambient', text: 'printer broken', topLevel: true }),
    );
    assert.equal(support.status, 'turn', 'mode all');
    assert.deepEqual(turns, ['start', 'start thread', 'printer broken']);
  });

  test('"forget this thread" is only for the person who started it', async () => {
    const starter = {
      id: '1.1',
      authorId: 'U1',
      isBot: false,
      fromSelf: false,
      text: 'hi',
      at: 0,
      files: [],
    };
    const port = new MockPort({ thread: [starter] });
    const { core, s } = conversation(port);
    await s.participate(REF);
    const refused = await core.receiveMessage(
      message({ principal: 'U2', text: 'forget this thread' }),
    );
    assert.equal(refused.status, 'refused');
    assert.equal(await s.isParticipating(REF), true);
    const done = await core.receiveMessage(
      message({ principal: 'U1', text: 'forget this thread' }),
    );
    assert.equal(done.status, 'forgotten');
    assert.equal(await s.isParticipating(REF), false);
    assert.match(
      port.texts().join('\n'),
      /Only the person who started[\s\S]*forgotten this thread/,
    );
  });

  test('a failure after the message was accepted is told to the person, not swallowed', async () => {
    const port = new MockPort();
    const { core, turns } = conversation(port);
    const handled = await core.receiveMessage(
      message({
        openThread: async () => {
          throw new Error('Missing Permissions: Create Public Threads');
        },
      }),
    );
    assert.equal(handled.status, 'failed');
    assert.deepEqual(turns, []);
    assert.match(port.texts().join('\n'), /⚠️ Something went wrong while handling that message/);
  });
});
