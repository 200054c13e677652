// The interaction engine against a real SQLite store and the in-memory port: references are
// signed and bound to their project, every step asks the flow's permission, pending state lives in
// the store (any replica, a restart), a step is taken once, expiry is told, refusals are logged
// and change nothing, and erasing a project drops its pending flows.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { ActionRefs } from '../../src/core/interactions/action-refs.ts';
import { InteractionEngine } from '../../src/core/interactions/engine.ts';
import type { Flow } from '../../src/core/interactions/flow.ts';
import { PendingFlows } from '../../src/core/interactions/pending-flows.ts';
import { signingKeys } from '../../src/core/interactions/signing-keys.ts';
import { ProjectEraser } from '../../src/core/project-eraser.ts';
import { createLogger, silentLogger } from '../../src/log/logger.ts';
import type { InteractedEvent } from '../../src/model/handled.ts';
import type { Actor, FlowName, Place } from '../../src/model/interaction.ts';
import type { RenderedText } from '../../src/model/rendered-text.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { MockPort } from '../support/mock-port.ts';

const store = new SqliteStore(':memory:');
after(() => store.close());

const ref: ThreadRef = { platform: 'slack', projectId: 'T1', channelId: 'C1', sessionId: '1.0' };
const place: Place = { ref, to: { ref, context: {} } };
const actor = (id: string, admin = false): Actor => ({ id, may: async () => admin });

/** A flow that waits for the asker's "ok" and counts what it did. */
function countingFlow(done: { count: number }): Flow<{ n: number }> {
  return {
    name: 'share' as FlowName,
    may: async (_ctx, a, _step, pending) => pending === undefined || pending.actorId === a.id,
    refusal: () => 'not yours',
    expired: () => 'expired',
    start: async (ctx, s) => {
      const { refs } = await ctx.wait({
        place: s.place,
        actorId: s.actor.id,
        data: { n: 1 },
        steps: ['ok'],
        alias: true,
      });
      return { show: [{ kind: 'notice', text: ctx.text(refs.ok ?? '') }], outcome: 'asked' };
    },
    step: async (ctx, _step, s) => {
      if (!(await s.take())) return { show: [], outcome: 'duplicate' };
      done.count += s.pending.data.n;
      return { show: [{ kind: 'notice', text: ctx.text('done'), replace: true }], outcome: 'done' };
    },
  };
}

function harness(o: { now?: () => number; keys?: Buffer[] } = {}) {
  const done = { count: 0 };
  const events: InteractedEvent[] = [];
  const lines: { msg: string; reason?: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)));
      cb();
    },
  });
  const now = o.now ?? Date.now;
  const port = new MockPort();
  const engine = new InteractionEngine({
    flows: [countingFlow(done) as unknown as Flow<never>],
    refs: new ActionRefs(signingKeys(o.keys, store), now),
    pending: new PendingFlows(store, now),
    ttlMs: 60_000,
    botName: 'bot',
    platform: () => ({
      port,
      settings: {
        projectNoun: 'workspace',
        settingsAdmins: 'admins',
        thinkingText: '',
        updateIntervalMs: 1,
        nativeStreaming: false,
      },
      interactive: true,
    }),
    claimOnce: async () => true,
    emit: (e) => events.push(e),
    log: createLogger('info', sink),
    now,
  });
  const start = async (who = 'U1') => {
    const r = await engine.start({
      flow: 'share' as FlowName,
      actor: actor(who),
      place,
      via: 'interaction',
      traceId: 't',
    });
    const shown = r.show[0];
    assert.ok(shown?.kind === 'notice');
    return shown.text.text;
  };
  const act = (token: string, who = 'U1', project = ref) =>
    engine.act({ ref: token, actor: actor(who), project, traceId: 't' });
  return { engine, done, events, lines, start, act };
}

const noticeOf = (r: { show: readonly { kind: string; text?: RenderedText }[] }) =>
  r.show[0]?.text?.text;

describe('action references', () => {
  const refs = new ActionRefs(signingKeys([Buffer.alloc(32, 7)], store));

  test('fit a Discord custom_id, name their flow and step, and verify only for their project', async () => {
    const token = await refs.make(ref, {
      flow: 'share',
      step: 'ok',
      key: 'abcdefghijkl',
      expiresAt: Date.now() + 60_000,
    });
    assert.ok(token.length <= 100, `${token.length} characters`);
    assert.deepEqual(ActionRefs.peek(token), { flow: 'share', step: 'ok' });
    const ok = await refs.check(token, ref);
    assert.ok(ok.ok && ok.ref.key === 'abcdefghijkl');
    assert.deepEqual(await refs.check(token, { platform: 'slack', projectId: 'T2' }), {
      ok: false,
      reason: 'other-project',
    });
    const altered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.deepEqual(await refs.check(altered, ref), { ok: false, reason: 'forged' });
    const otherStep = token.replace('.ok.', '.no.');
    assert.deepEqual(await refs.check(otherStep, ref), { ok: false, reason: 'forged' });
    assert.deepEqual(await refs.check('tm:share:ok:C1:1.0:U1', ref), {
      ok: false,
      reason: 'malformed',
    });
  });

  test('a rotated key still verifies the references the previous one signed', async () => {
    const old = Buffer.alloc(32, 1);
    const token = await new ActionRefs(signingKeys([old], store)).make(ref, {
      flow: 'erase',
      step: 'ok',
      key: 'abcdefghijkl',
      expiresAt: Date.now() + 60_000,
    });
    const rotated = new ActionRefs(signingKeys([Buffer.alloc(32, 2), old], store));
    assert.equal((await rotated.check(token, ref)).ok, true);
    const gone = new ActionRefs(signingKeys([Buffer.alloc(32, 2)], store));
    assert.deepEqual(await gone.check(token, ref), { ok: false, reason: 'forged' });
  });

  test('without a configured key, replicas share one random key kept in the store', async () => {
    const a = await signingKeys(undefined, store)();
    const b = await signingKeys(undefined, store)();
    assert.equal(a[0]?.length, 32);
    assert.deepEqual(a, b);
    const configured = await signingKeys([Buffer.alloc(32, 7)], store)();
    assert.notDeepEqual(
      configured[0],
      Buffer.alloc(32, 7),
      'derived, never the encryption key itself',
    );
  });
});

describe('the interaction engine', () => {
  test('a step is taken once: a second press, or a replay later, is refused and logged', async () => {
    const h = harness();
    const token = await h.start();
    const [first, second] = await Promise.all([h.act(token), h.act(token)]);
    const outcomes = [first.outcome, second.outcome];
    assert.equal(outcomes.filter((o) => o === 'done').length, 1, JSON.stringify(outcomes));
    assert.equal(h.done.count, 1, 'acted once');
    const replay = await h.act(token);
    assert.equal(replay.outcome, 'refused');
    assert.match(noticeOf(replay) ?? '', /already answered/);
    assert.ok(h.lines.some((l) => l.msg === 'action reference refused' && l.reason === 'used'));
  });

  test("someone else's press is refused with the flow's words and leaves the flow to its asker", async () => {
    const h = harness();
    const token = await h.start();
    const other = await h.act(token, 'U2');
    assert.equal(other.outcome, 'refused');
    assert.equal(noticeOf(other), 'not yours');
    assert.equal(h.done.count, 0);
    assert.equal((await h.act(token)).outcome, 'done');
  });

  test('forged, altered and other-project references are refused, logged, and change nothing', async () => {
    const h = harness();
    const token = await h.start();
    for (const [bad, project, reason] of [
      [`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, ref, 'forged'],
      [token, { ...ref, projectId: 'T9' }, 'other-project'],
      ['t1.share.ok.xxxx', ref, 'malformed'],
    ] as const) {
      const r = await h.act(bad, 'U1', project);
      assert.equal(r.outcome, 'refused');
      assert.match(noticeOf(r) ?? '', /I cannot act on that/);
      assert.ok(
        h.lines.some((l) => l.msg === 'action reference refused' && l.reason === reason),
        reason,
      );
    }
    assert.equal(h.done.count, 0);
    assert.equal((await h.act(token)).outcome, 'done', 'the genuine one still works');
  });

  test('an expired confirmation says so and replaces itself', async () => {
    let t = Date.now();
    const h = harness({ now: () => t });
    const token = await h.start();
    t += 61_000;
    const r = await h.act(token);
    assert.equal(r.outcome, 'expired');
    assert.deepEqual(
      r.show[0] && { kind: r.show[0].kind, replace: (r.show[0] as { replace?: boolean }).replace },
      { kind: 'notice', replace: true },
    );
    assert.equal(h.done.count, 0);
  });

  test('a typed reply continues only its own person’s flow in its own channel', async () => {
    const h = harness();
    await h.start('U1');
    const typed = (who: string, channel: string) =>
      h.engine.typed('share' as FlowName, 'ok', {
        actor: actor(who),
        place: {
          ref: { ...ref, channelId: channel },
          to: { ref: { ...ref, channelId: channel }, context: {} },
        },
        traceId: 't',
      });
    assert.equal(await typed('U2', 'C1'), undefined);
    assert.equal(await typed('U1', 'C2'), undefined);
    assert.equal((await typed('U1', 'C1'))?.outcome, 'done');
    assert.equal(await typed('U1', 'C1'), undefined, 'taken');
  });

  test('erasing the project drops its pending flows', async () => {
    const h = harness();
    const token = await h.start('U7');
    await new ProjectEraser({ store, log: silentLogger() }).erase(ref);
    const r = await h.act(token, 'U7');
    assert.equal(r.outcome, 'refused');
    assert.match(noticeOf(r) ?? '', /already answered/);
    assert.equal(h.done.count, 0);
  });
});

describe('reading a form', () => {
  test('each platform’s values come out typed, and each problem is a field error', async () => {
    const { readForm } = await import('../../src/core/interactions/form-values.ts');
    const fields = [
      { kind: 'short', id: 'name', label: 'Name', maxLength: 5 },
      { kind: 'number', id: 'n', label: 'N', min: 0, max: 50 },
      { kind: 'toggle', id: 'on', label: 'On' },
      { kind: 'select', id: 'mode', label: 'Mode', choices: [{ value: 'all', label: 'All' }] },
      { kind: 'multi', id: 'tools', label: 'Tools', choices: [{ value: 'files', label: 'Files' }] },
    ] as const;
    // Discord's shape: words and lists of picks.
    assert.deepEqual(
      readForm(fields, { name: ' Ada ', n: '12', on: ['on'], mode: ['all'], tools: ['files'] }),
      {
        values: { name: 'Ada', n: 12, on: true, mode: 'all', tools: ['files'] },
        errors: undefined,
      },
    );
    const bad = readForm(fields, {
      name: 'Adalbert',
      n: 51,
      on: false,
      mode: 'some',
      tools: ['x'],
    });
    assert.deepEqual(Object.keys(bad.errors ?? {}).sort(), ['mode', 'n', 'name', 'tools']);
  });
});
