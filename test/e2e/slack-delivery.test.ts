// Exactly one answer per message (ARCHITECTURE.md, "Invariants" 2), signatures, Socket Mode.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies, waitForReply } from '../support/slack-helpers.ts';

describe('Slack delivery over HTTP', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  test('a mention arrives as app_mention and message, and is answered once', async () => {
    const { ts, deliveries } = await h.slack.postUserMessage({
      channel: 'C1',
      user: 'U1',
      text: `<@${h.slack.botUserId}> hello`,
    });
    assert.equal(deliveries.length, 2, 'Slack sent both events');
    assert.ok(deliveries.every((d) => d.status === 200));
    await waitForReply(h.slack, 'C1', ts, 'hello');
    const handled = await h.handled(ts, 2);
    assert.deepEqual(handled.map((e) => e.handled.status).sort(), ['ignored', 'turn']);
    assert.equal(botReplies(h.slack, 'C1', ts).length, 1);
  });

  test('a retry of an event still being processed does not start a second run', async () => {
    h.llm.enqueue({ content: 'slow answer', delayMs: 600 });
    const ts = '1700000000.000100';
    const event = {
      type: 'app_mention',
      user: 'U2',
      text: `<@${h.slack.botUserId}> slow one`,
      ts,
      channel: 'C2',
      event_ts: ts,
    };
    const first = await h.slack.deliverEvent(event, { eventId: 'Ev0RETRY0001' });
    const retry1 = await h.slack.deliverEvent(event, {
      eventId: 'Ev0RETRY0001',
      retryNum: 1,
      retryReason: 'http_timeout',
    });
    const retry2 = await h.slack.deliverEvent(event, {
      eventId: 'Ev0RETRY0001',
      retryNum: 2,
      retryReason: 'http_timeout',
    });
    assert.deepEqual(
      [first.status, retry1.status, retry2.status],
      [200, 200, 200],
      'retries are acknowledged',
    );
    await waitForReply(h.slack, 'C2', ts, 'slow answer');
    const handled = await h.handled(ts, 3);
    assert.deepEqual(handled.map((e) => e.handled.status).sort(), [
      'duplicate',
      'duplicate',
      'turn',
    ]);
    assert.equal(botReplies(h.slack, 'C2', ts).length, 1);
    assert.equal(
      h.llm.requests.filter((r) => JSON.stringify(r.body).includes('slow one')).length,
      1,
    );
    // And after it finished, a late retry is still recognised.
    await h.slack.deliverEvent(event, {
      eventId: 'Ev0RETRY0001',
      retryNum: 3,
      retryReason: 'http_timeout',
    });
    assert.equal((await h.handled(ts, 4))[3]?.handled.status, 'duplicate');
    assert.equal(botReplies(h.slack, 'C2', ts).length, 1);
  });

  test('Slack-style retries after a missed ack still yield one answer', async () => {
    const ts = '1700000000.000200';
    const results = await h.slack.deliverWithRetries(
      {
        type: 'app_mention',
        user: 'U2',
        text: `<@${h.slack.botUserId}> retried`,
        ts,
        channel: 'C3',
        event_ts: ts,
      },
      { eventId: 'Ev0RETRY0002' },
    );
    assert.equal(results.at(-1)?.status, 200);
    await waitForReply(h.slack, 'C3', ts, 'retried');
    const handled = await h.handled(ts, results.filter((r) => r.status === 200).length);
    assert.equal(handled.filter((e) => e.handled.status === 'turn').length, 1);
    assert.equal(botReplies(h.slack, 'C3', ts).length, 1);
  });

  test('a request with a forged signature is refused and not answered', async () => {
    const ts = '1700000000.000300';
    const before = h.llm.requests.length;
    const res = await h.slack.deliverEvent(
      {
        type: 'app_mention',
        user: 'U9',
        text: `<@${h.slack.botUserId}> forged`,
        ts,
        channel: 'C4',
        event_ts: ts,
      },
      { badSignature: true },
    );
    assert.equal(res.status, 401);
    const stale = await h.slack.deliverEvent(
      {
        type: 'app_mention',
        user: 'U9',
        text: `<@${h.slack.botUserId}> replayed`,
        ts,
        channel: 'C4',
        event_ts: ts,
      },
      { timestampSkewSec: 600 },
    );
    // Refused before any handler runs: the 401 is the signal that nothing will follow.
    assert.equal(stale.status, 401, 'a replayed old request is refused too');
    assert.equal(h.llm.requests.length, before);
    assert.equal(botReplies(h.slack, 'C4', ts).length, 0);
  });

  test('Enterprise Grid: the project is enterprise and team, so keys never collide', async () => {
    const a = await h.slack.postUserMessage({
      channel: 'C5',
      user: 'U1',
      text: `<@${h.slack.botUserId}> grid`,
      teamId: 'T111',
      enterpriseId: 'E999',
    });
    await waitForReply(h.slack, 'C5', a.ts, 'grid');
    assert.equal(await h.app.store.kv.get(`participating:slack:E999.T111:C5:${a.ts}`), true);
  });
  test('while shutting down, events are refused with 503 so Slack delivers them again', async () => {
    await h.app.slack?.stop();
    const ts = '1700000000.000400';
    const res = await h.slack.deliverEvent({
      type: 'app_mention',
      user: 'U1',
      text: `<@${h.slack.botUserId}> late`,
      ts,
      channel: 'C6',
      event_ts: ts,
    });
    assert.equal(res.status, 503);
    await h.restart();
    const again = await h.slack.deliverEvent(
      {
        type: 'app_mention',
        user: 'U1',
        text: `<@${h.slack.botUserId}> late`,
        ts,
        channel: 'C6',
        event_ts: ts,
      },
      { retryNum: 1, retryReason: 'http_error' },
    );
    assert.equal(again.status, 200);
    await waitForReply(h.slack, 'C6', ts, 'late');
  });
});

describe('Slack over Socket Mode', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ socketMode: true });
  });
  after(async () => {
    await h.close();
  });

  test('a mention delivered over the socket is acknowledged and answered', async () => {
    const { ts, deliveries } = await h.slack.postUserMessage({
      channel: 'C9',
      user: 'U1',
      text: `<@${h.slack.botUserId}> over the socket`,
    });
    assert.ok(
      deliveries.every((d) => d.status === 200),
      'every envelope was acked',
    );
    const replies = await waitForReply(h.slack, 'C9', ts, 'over the socket');
    assert.equal(replies.length, 1);
  });
});
