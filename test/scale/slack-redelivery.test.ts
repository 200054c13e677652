// Slack's retry of an event whose ingress died between claiming the message and queuing it: an
// ingress (split roles) on a Redis of the test's own, with a worker beside it. The dead ingress is
// a server that does what a real one does up to the claim (the pending claims, in the same Redis,
// as `SessionState.claimOnce` makes them), then drops the connection, as a process killed there
// does. Slack's first retry finds the claims pending and is answered 503, not acknowledged; once
// the claims have lapsed the next retry is taken: the message is answered exactly once.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createStore } from '../../src/compose/create-store.ts';
import { PENDING_CLAIM } from '../../src/core/session-state.ts';
import type { HandledEvent } from '../../src/model/handled.ts';
import type { Store } from '../../src/store/store.ts';
import type { Harness } from '../support/harness.ts';
import { botReplies, waitForReply } from '../support/slack-helpers.ts';
import { type SplitHarness, startSplitHarness } from '../support/split-harness.ts';
import { lastQuestionTag } from './tagged-answers.ts';

const QUEUE = `redelivery-test-${process.pid}`;
/** The gateway lease sets the pending claim's life (half of it, at least a second). */
const LEASE_MS = 2000;

/** The delivery keys a Slack event's message is claimed under (slack-intake.ts). */
function keysOf(envelope: {
  event_id?: string;
  team_id?: string;
  event?: { channel?: string; ts?: string };
}): string[] {
  const e = envelope.event ?? {};
  return [`slack:event:${envelope.event_id}`, `slack:msg:${envelope.team_id}:${e.channel}:${e.ts}`];
}

/** An ingress that claims each event's message (pending) and dies before queuing it. */
async function dyingIngress(
  store: Store,
): Promise<{ url: string; server: Server; claimed: string[] }> {
  const claimed: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const keys = keysOf(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      Promise.all(keys.map((k) => store.claim(`seen:${k}`, PENDING_CLAIM, LEASE_MS / 2))).then(
        () => {
          claimed.push(...keys);
          res.socket?.destroy();
        },
        () => res.socket?.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/slack/events`, server, claimed };
}

/** Resolves once none of these claims is held any more (Redis expires them). */
async function lapsed(store: Store, keys: string[]): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const held = await Promise.all(keys.map((k) => store.holder(`seen:${k}`)));
    if (held.every((x) => x === undefined)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the dead ingress's claims never lapsed");
}

describe('Slack redelivery while a claim is pending', () => {
  let split: SplitHarness;
  let h: Harness;
  let store: Store;

  before(async () => {
    split = await startSplitHarness({
      overrides: {
        scale: { queue: { name: QUEUE, orderPollMs: 20 }, gateway: { leaseMs: LEASE_MS } },
      },
    });
    ({ h } = split);
    store = await createStore(split.redis.url);
    h.llm.setResponder((body) => {
      const tag = lastQuestionTag(body) ?? 'q-none';
      return { content: `Answer for ${tag}. END-${tag}` };
    });
  });

  after(async () => {
    await store?.close();
    await split?.close();
  });

  test('an ingress killed between claim and ack: the retry is refused, a later one answered once', async () => {
    const live = `http://127.0.0.1:${h.app.port}/slack/events`;
    const dying = await dyingIngress(store);
    const handled: HandledEvent[] = [];
    h.app.core.events.on('handled', (e: HandledEvent) => handled.push(e));
    try {
      h.slack.setEventsUrl(dying.url);
      const channel = 'C0RETRY';
      const { ts, deliveries } = await h.slack.postUserMessage({
        channel,
        user: 'U1',
        text: 'q-retry please answer',
        mention: true,
      });
      assert.ok(
        deliveries.every((d) => d.status === 0),
        'the first ingress never answered',
      );
      assert.ok(dying.claimed.length > 0, 'and it claimed the message first');
      h.slack.setEventsUrl(live);

      // Slack's first retry comes at once: the claims are pending, so it is not acknowledged.
      const first = await h.slack.redeliverEvents(ts, { retryNum: 1 });
      assert.ok(
        first.some((d) => d.status === 503),
        `statuses: ${first.map((d) => d.status)}`,
      );
      assert.ok(first.every((d) => d.status === 503 || d.status === 200));
      assert.ok(handled.some((e) => e.messageId === ts && e.handled.status === 'deferred'));

      // Slack's next retry comes a minute later; by then the dead ingress's claims have lapsed.
      await lapsed(store, dying.claimed);
      const second = await h.slack.redeliverEvents(ts, { retryNum: 2 });
      assert.ok(
        second.every((d) => d.status === 200),
        `statuses: ${second.map((d) => d.status)}`,
      );
      await waitForReply(h.slack, channel, ts, 'END-q-retry', 30_000);

      // A last retry (five minutes on, had the second gone unacknowledged too) is a repeat.
      const third = await h.slack.redeliverEvents(ts, { retryNum: 3 });
      assert.ok(third.every((d) => d.status === 200));
      assert.ok(handled.some((e) => e.messageId === ts && e.handled.status === 'duplicate'));
      const answers = botReplies(h.slack, channel, ts).filter((m) =>
        m.text.includes('END-q-retry'),
      );
      assert.equal(answers.length, 1, 'answered exactly once');
      const asked = h.llm.requests.filter(
        (r) =>
          r.path.includes('chat/completions') && r.body && lastQuestionTag(r.body) === 'q-retry',
      );
      assert.equal(asked.length, 1, 'the model was asked once');
    } finally {
      h.slack.setEventsUrl(live);
      await new Promise<void>((resolve) => dying.server.close(() => resolve()));
    }
  });
});

describe('Slack redelivery over Socket Mode while a claim is pending', () => {
  let split: SplitHarness;
  let h: Harness;
  let store: Store;

  before(async () => {
    split = await startSplitHarness({
      socketMode: true,
      overrides: {
        scale: {
          queue: { name: `${QUEUE}-socket`, orderPollMs: 20 },
          gateway: { leaseMs: LEASE_MS },
        },
      },
    });
    ({ h } = split);
    store = await createStore(split.redis.url);
    h.llm.setResponder((body) => {
      const tag = lastQuestionTag(body) ?? 'q-none';
      return { content: `Answer for ${tag}. END-${tag}` };
    });
  });

  after(async () => {
    await store?.close();
    await split?.close();
  });

  test('the retry is acknowledged already: it waits for the dead claim to lapse and is answered once', async () => {
    const ts = '1700000000.000200';
    const channel = 'C0SOCKET';
    const eventId = 'Ev0SOCKET0001';
    const envelope = { event_id: eventId, team_id: h.slack.teamId, event: { channel, ts } };
    const keys = keysOf(envelope);
    // The ingress that took the first delivery claimed it and died.
    for (const k of keys) await store.claim(`seen:${k}`, PENDING_CLAIM, LEASE_MS / 2);
    const event = {
      type: 'app_mention',
      user: 'U2',
      text: `<@${h.slack.botUserId}> q-socket please answer`,
      ts,
      channel,
      event_ts: ts,
    };
    const retry = await h.slack.deliverEvent(event, { eventId, retryNum: 1 });
    assert.equal(retry.status, 200, 'Socket Mode acknowledges at once');
    await waitForReply(h.slack, channel, ts, 'END-q-socket', 30_000);
    // And the one after it is a repeat.
    await h.slack.deliverEvent(event, { eventId, retryNum: 2 });
    const settled = await h.handled(ts, 3);
    assert.deepEqual(
      settled.map((e) => e.handled.status),
      ['deferred', 'queued', 'duplicate'],
    );
    const answers = botReplies(h.slack, channel, ts).filter((m) => m.text.includes('END-q-socket'));
    assert.equal(answers.length, 1, 'answered exactly once');
  });
});
