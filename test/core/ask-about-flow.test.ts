// The ask-about flow on its own: it hands the conversation one message about the message it was
// used on (its author and time, or the message itself where the platform handed it over), in the
// flow's place, with the person's own question when they gave one, and shows nothing itself.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AskAboutFlow, QUESTION_FIELD } from '../../src/core/interactions/ask-about-flow.ts';
import type { FlowContext, FlowStart } from '../../src/core/interactions/flow.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { InboundMessage } from '../../src/model/incoming.ts';
import type { Place } from '../../src/model/interaction.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { MockPort } from '../support/mock-port.ts';

const ref: ThreadRef = { platform: 'slack', projectId: 'T1', channelId: 'C1', sessionId: '10.0' };
const place: Place = { ref, to: { ref, context: { teamId: 'T1' } } };
const AT = Date.UTC(2026, 2, 14, 9, 30);

function run(s: Partial<FlowStart>, names: Record<string, string> = {}) {
  const got: InboundMessage[] = [];
  const flow = new AskAboutFlow(async (m) => {
    got.push(m);
  });
  const port = Object.assign(new MockPort(), {
    displayName: async (id: string) => names[id],
  });
  const ctx = {
    port,
    now: () => AT + 60_000,
    text: (md: string) => RenderedText.one(port.format, md),
  } as unknown as FlowContext;
  const start: FlowStart = {
    actor: { id: 'U2', name: 'Bea', may: async () => false },
    place,
    via: 'interaction',
    values: {},
    traceId: 'trace',
    log: silentLogger(),
    ...s,
  };
  return flow.start(ctx, start).then((r) => ({ r, got }));
}

describe('ask-about flow', () => {
  test('asks about the message by its author and time, answered in the flow’s place', async () => {
    const { r, got } = await run(
      { message: { id: '10.0', files: [], authorId: 'U1', at: AT }, requestId: '11.0' },
      { U1: 'Alice' },
    );
    assert.deepEqual(r.show, []);
    assert.equal(r.outcome, 'done');
    const [m] = got;
    assert.ok(m);
    assert.deepEqual(m.ref, ref);
    assert.deepEqual(m.to, place.to);
    assert.equal(m.principal, 'U2');
    assert.equal(m.messageId, '11.0', 'sorts after the message, so the thread read quotes it');
    assert.equal(m.intent, 'ask');
    assert.match(m.text, /^Look at the message from Alice \(U1\) posted at 2026-03-14 09:30 UTC/);
    assert.match(m.text, /what matters in it/);
    assert.equal(m.delivered, undefined, 'the thread is read');
    assert.deepEqual(m.dedupe, ['slack:ask-about:T1:11.0']);
  });

  test('the person’s own question replaces the default ending; a handed-over message is quoted', async () => {
    const quoted = {
      id: '10.0',
      authorId: 'U1',
      authorName: 'Alice',
      isBot: false,
      fromSelf: false,
      text: 'Rollout paused',
      at: AT,
      files: [],
    };
    const { got } = await run({
      message: { id: '10.0', files: [], quoted },
      values: { [QUESTION_FIELD]: '  Until when?  ' },
    });
    const [m] = got;
    assert.ok(m);
    assert.match(m.text, /from Alice \(U1\) posted at .*\. Until when\?$/);
    assert.deepEqual(m.delivered, [quoted]);
    assert.equal(m.messageId, '10.0', 'without a request id, the message’s own');
  });

  test('without a message there is nothing to ask about', async () => {
    const { r, got } = await run({});
    assert.equal(r.outcome, 'refused');
    assert.equal(got.length, 0);
  });
});
