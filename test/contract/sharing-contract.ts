// Sharing the GPU, the same on every platform (issue 22): over a token budget the asker is told
// privately which budget, how much was used and when it resets, and nothing runs; at 80 % they are
// warned once and answered. Where people can delete their messages (Slack, Discord), a question
// deleted while it waits for a slot leaves the queue: it is never answered and its notice goes.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Handled } from '../../src/model/handled.ts';
import { echoResponder } from '../emulators/openai/index.ts';
import { waitFor } from '../emulators/slack/wait-for.ts';
import type { MakeDriver, PlatformDriver, ThreadDriver } from './driver.ts';

const LIMIT = 1_000_000;

function turnOutcome(hs: Handled[]) {
  const t = hs.find((h) => h.status === 'turn');
  assert.ok(t?.status === 'turn', `a turn expected: ${JSON.stringify(hs)}`);
  return t.outcome;
}

const asked = (d: PlatformDriver, words: string) =>
  d.llm.requests.some((r) => JSON.stringify(r.body.messages).includes(words));

export function budgetContract(name: string, makeDriver: MakeDriver): void {
  describe(`${name}: token budgets`, () => {
    let d: PlatformDriver;
    before(async () => {
      d = await makeDriver({
        overrides: {
          sharing: { budgets: { person: { daily: LIMIT, monthly: 0 }, warnAt: 0.8 } },
        },
      });
    });
    after(async () => {
      await d?.close();
    });
    afterEach(() => {
      d.llm.setResponder(echoResponder);
    });

    test('warned once at 80 % and answered; over the budget told privately which, how much, when it resets, and not answered', async () => {
      // The model server reports what each answer used: 85 % of the day's budget at once.
      d.llm.enqueue({ content: 'first answer', usage: { prompt_tokens: 850_000 } });
      const first = await d.mention('how big is the budget?');
      assert.equal(turnOutcome(await d.handled(first.messageId)).status, 'answered');
      await d.usageBooked();
      const before = d.privateMessages(first.thread).length;

      d.llm.enqueue({ content: 'second answer', usage: { prompt_tokens: 10_000 } });
      const second = await d.followUp(first.thread, 'and the deadline?', { mention: true });
      assert.equal(turnOutcome(await d.handled(second.messageId)).status, 'answered');
      await d.usageBooked();
      const warned = d.privateMessages(first.thread).slice(before);
      const warning = warned.find((t) => /Heads-up/.test(t));
      assert.ok(warning, `a warning: ${JSON.stringify(warned)}`);
      assert.match(
        warning,
        /your daily token budget is 8\d % used \([\d,]+ of 1,000,000 tokens\); it resets \d{4}-\d\d-\d\d 00:00 UTC/,
      );

      d.llm.enqueue({ content: 'third answer', usage: { prompt_tokens: 200_000 } });
      const third = await d.followUp(first.thread, 'who owns it?', { mention: true });
      assert.equal(turnOutcome(await d.handled(third.messageId)).status, 'answered');
      const all = d.privateMessages(first.thread).slice(before);
      assert.equal(all.filter((t) => /Heads-up/.test(t)).length, 1, 'warned once');
      await d.usageBooked();

      const fourth = await d.followUp(first.thread, 'one more thing?', { mention: true });
      const refused = turnOutcome(await d.handled(fourth.messageId));
      assert.equal(refused.status === 'failed' && refused.code, 'over_budget');
      assert.ok(!asked(d, 'one more thing?'), 'the model was not asked');
      const told = d.privateMessages(first.thread).find((t) => /can't answer/.test(t));
      assert.ok(told, 'told privately');
      assert.match(
        told,
        /your daily token budget is used up \(1,0[\d,]+ of 1,000,000 tokens\)\. It resets \d{4}-\d\d-\d\d 00:00 UTC\./,
      );
    });
  });
}

export function queueDeletionContract(name: string, makeDriver: MakeDriver<ThreadDriver>): void {
  describe(`${name}: a question deleted while it waits`, () => {
    let d: ThreadDriver;
    before(async () => {
      d = await makeDriver({
        overrides: {
          core: { maxConcurrentTurns: 1 },
          sharing: { fairness: { showPlaceEveryMs: 20 } },
        },
      });
    });
    after(async () => {
      await d?.close();
    });

    test('leaves the queue: never answered, its notice gone; the others are answered', async () => {
      d.llm.enqueue({ content: 'the slow first answer', delayMs: 1500 });
      const first = await d.mention('first question holds the slot');
      await waitFor(
        () => asked(d, 'first question holds the slot'),
        5000,
        () => 'the first question never reached the model',
      );
      const second = await d.mention('second question waits');
      const third = await d.mention('third question waits');
      // Both wait for the slot (their threads open) before the third is deleted.
      await waitFor(
        () => d.turnsWaiting() === 2,
        5000,
        () => `${d.turnsWaiting()} questions waiting`,
      );
      await d.deleteMessage(third);
      assert.deepEqual(turnOutcome(await d.handled(third.messageId)), {
        status: 'rejected',
        reason: 'withdrawn',
      });
      assert.equal(turnOutcome(await d.handled(first.messageId)).status, 'answered');
      assert.equal(turnOutcome(await d.handled(second.messageId)).status, 'answered');
      assert.ok(!asked(d, 'third question waits'), 'the deleted question never reached the model');
      assert.deepEqual(
        d.botMessages(third.thread).map((m) => m.text),
        [],
        'nothing of it is left in its thread',
      );
    });
  });
}
