// The feedback and export flows on the engine, against a real SQLite store: an answer's buttons
// last as long as votes are kept (not a confirmation's minutes) and serve every voter, again and
// again; 👎 then the reason form; an expired vote is told without taking the answer's place; the
// export is an admin's file and a member's refusal.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { FeedbackService } from '../../src/core/feedback.ts';
import { ActionRefs } from '../../src/core/interactions/action-refs.ts';
import { InteractionEngine } from '../../src/core/interactions/engine.ts';
import { ExportFlow } from '../../src/core/interactions/export-flow.ts';
import { FeedbackFlow } from '../../src/core/interactions/feedback-flow.ts';
import type { Flow } from '../../src/core/interactions/flow.ts';
import { PendingFlows } from '../../src/core/interactions/pending-flows.ts';
import { signingKeys } from '../../src/core/interactions/signing-keys.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createMetrics } from '../../src/log/metrics.ts';
import type { Actor, Place } from '../../src/model/interaction.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { MockPort } from '../support/mock-port.ts';

const store = new SqliteStore(':memory:');
after(() => store.close());

const DAY = 24 * 60 * 60_000;
const ref: ThreadRef = { platform: 'slack', projectId: 'TF', channelId: 'C1', sessionId: '1.0' };
const place: Place = { ref, to: { ref, context: {} } };
const person = (id: string, admin = false): Actor => ({ id, may: async () => admin });

function setup() {
  let now = Date.now();
  const clock = () => now;
  const feedback = new FeedbackService({
    store,
    metrics: createMetrics(),
    log: silentLogger(),
    metricsByChannel: false,
    retentionDays: 30,
    maxReasonChars: 200,
    now: clock,
  });
  const engine = new InteractionEngine({
    flows: [new FeedbackFlow(feedback), new ExportFlow(feedback)] as unknown as Flow<never>[],
    refs: new ActionRefs(signingKeys([Buffer.alloc(32, 3)], store), clock),
    pending: new PendingFlows(store, clock),
    ttlMs: 60_000,
    botName: 'bot',
    platform: () => ({
      port: new MockPort(),
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
    emit: () => undefined,
    log: silentLogger(),
    now: clock,
  });
  const act = (token: string, who: string, values = {}) =>
    engine.act({ ref: token, actor: person(who), project: ref, values, traceId: 't' });
  const answered = async (turn: string) => {
    await feedback.recordTurn({
      id: turn,
      ref,
      model: 'm',
      settings: undefined,
      askedBy: 'UA',
      at: now,
    });
    return engine.buttons('feedback', place, { turn });
  };
  return { feedback, engine, act, answered, later: (ms: number) => (now += ms) };
}

test('votes: many people, again and again, then the reason; the buttons last as long as votes', async () => {
  const { feedback, act, answered, later } = setup();
  const [up, down] = await answered('turn-1');
  assert.deepEqual([up?.label, down?.label], ['👍', '👎']);
  const expiry = Number.parseInt(up?.ref.split('.')[5] ?? '0', 36) * 1000;
  assert.ok(expiry - Date.now() > 29 * DAY, 'kept for the retention window');
  later(10 * DAY);
  const thanks = (await act(up?.ref ?? '', 'U1')).show[0];
  assert.ok(thanks?.kind === 'notice');
  assert.equal(thanks.text.text, 'Thanks for the 👍.');
  assert.equal((await act(up?.ref ?? '', 'U2')).outcome, 'done', 'a second voter');
  const no = await act(down?.ref ?? '', 'U1');
  const form = no.show[0];
  assert.ok(form?.kind === 'form');
  assert.match(form.form.intro?.text ?? '', /Changed your vote to 👎/);
  const told = await act(form.form.submit.ref, 'U1', { reason: ' too vague ' });
  assert.equal(told.show[0]?.kind === 'notice' && told.show[0].replace, undefined);
  const skipped = await act(form.form.cancel.ref, 'U1');
  assert.equal(skipped.outcome, 'done', 'skipping keeps the vote');
  const rows = await feedback.rows('slack', 'TF');
  assert.deepEqual(
    rows.filter((r) => r.turn_id === 'turn-1').map((r) => [r.voter, r.vote, r.reason]),
    [
      ['U1', 'down', 'too vague'],
      ['U2', 'up', ''],
    ],
  );
  later(30 * DAY);
  const expired = await act(up?.ref ?? '', 'U3');
  assert.equal(expired.outcome, 'expired');
  const note = expired.show[0];
  assert.ok(note?.kind === 'notice');
  assert.notEqual(note.replace, true, 'an expired vote leaves the answer as it is');
  assert.match(note.text.text, /too old to rate/);
});

test('export: a file for an admin, a refusal for a member, usage for an unknown format', async () => {
  const { engine, act, answered } = setup();
  const [up] = await answered('turn-2');
  await act(up?.ref ?? '', 'U9');
  const start = (who: Actor, format?: string) =>
    engine.start({
      flow: 'export',
      actor: who,
      place,
      via: 'interaction',
      traceId: 't',
      ...(format ? { values: { format } } : {}),
    });
  const refused = await start(person('UM'));
  assert.equal(refused.outcome, 'refused');
  assert.ok(refused.show[0]?.kind === 'notice');
  assert.match(refused.show[0].text.text, /^Only admins can export the feedback\.$/);
  const file = (await start(person('UA', true), 'json')).show[0];
  assert.ok(file?.kind === 'file');
  assert.match(file.file.name, /\.json$/);
  assert.ok((JSON.parse(file.file.body) as { voter: string }[]).some((r) => r.voter === 'U9'));
  assert.equal((await start(person('UA', true), 'xml')).outcome, 'invalid');
});
