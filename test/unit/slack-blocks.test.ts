// The blocks under a Slack answer: native sources where every shown source has an address, the
// line otherwise, and the order in which a refusing workspace gets plainer blocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { footerBlocks, NATIVE_FOOTER, plainerStyle } from '../../adapters/slack/slack-blocks.ts';
import { slackFormat } from '../../adapters/slack/slack-format.ts';
import { sourcesMarkdown } from '../../src/core/answer-sources.ts';
import type { AnswerFooter, AnswerSource } from '../../src/model/answer-extras.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';

/** `turn`: the answer carries 👍/👎 (their references stand in for the feedback flow's). */
function footer(sources: AnswerSource[], turn?: string): AnswerFooter {
  const md = sourcesMarkdown(sources);
  return {
    sources,
    ...(turn
      ? {
          votes: [
            { label: '👍', ref: `t1.feedback.up.${turn}` },
            { label: '👎', ref: `t1.feedback.down.${turn}` },
          ],
        }
      : {}),
    ...(md ? { sourcesText: RenderedText.render(slackFormat, md, 'message', 3000)[0] } : {}),
  };
}

type Card = {
  type: string;
  sources?: { url: string; text: string }[];
  details?: { elements: { elements: { text: string }[] }[] };
};

test('a linked file and an outdated web document become a task card with URL sources', () => {
  const blocks = footerBlocks(
    footer([
      {
        kind: 'file',
        title: 'plan.pdf',
        page: 2,
        link: 'https://acme.slack.com/files/U1/F1/plan.pdf',
      },
      {
        kind: 'knowledge',
        title: 'https://wiki.acme.test/adr/1',
        uri: 'https://wiki.acme.test/adr/1',
        link: 'https://wiki.acme.test/adr/1',
        freshness: 'stale',
      },
      { kind: 'knowledge', title: 'kb://runbook', uri: 'kb://runbook', freshness: 'current' },
    ]),
  ) as Card[];
  assert.equal(blocks.length, 1);
  const card = blocks[0] as Card;
  assert.equal(card.type, 'task_card');
  assert.deepEqual(card.sources, [
    { type: 'url', url: 'https://acme.slack.com/files/U1/F1/plan.pdf', text: 'plan.pdf, p. 2' },
    {
      type: 'url',
      url: 'https://wiki.acme.test/adr/1',
      text: 'https://wiki.acme.test/adr/1 (outdated)',
    },
  ]);
  // The document without an address is still named.
  assert.equal(card.details?.elements[0]?.elements[0]?.text, 'Also: kb://runbook');
});

test('sources without any address keep the one-line context block', () => {
  const [block] = footerBlocks(footer([{ kind: 'file', title: 'notes.txt' }])) as {
    type: string;
    elements: { text: string }[];
  }[];
  assert.equal(block?.type, 'context');
  assert.match(block?.elements[0]?.text ?? '', /^Sources: `notes\.txt`/);
});

test('a refusing workspace loses native sources first, then native buttons, then nothing is left', () => {
  const f = footer([{ kind: 'file', title: 'a.pdf', link: 'https://x.test/a' }], 'turn-1');
  const types = (style = NATIVE_FOOTER) => footerBlocks(f, style).map((b) => b.type);
  assert.deepEqual(types(), ['task_card', 'context_actions']);
  const second = plainerStyle(f, NATIVE_FOOTER);
  assert.deepEqual(second, { nativeSources: false, nativeButtons: true });
  assert.deepEqual(types(second), ['context', 'context_actions']);
  const third = plainerStyle(f, second ?? NATIVE_FOOTER);
  assert.deepEqual(types(third), ['context', 'actions']);
  assert.equal(plainerStyle(f, third ?? NATIVE_FOOTER), undefined);
  // Without linked sources the first refusal goes straight to plain buttons.
  const unlinked = footer([{ kind: 'file', title: 'a.pdf' }], 'turn-2');
  assert.deepEqual(plainerStyle(unlinked, NATIVE_FOOTER), {
    nativeSources: true,
    nativeButtons: false,
  });
});

test("the vote buttons carry the feedback flow's references, native or plain", () => {
  const f = footer([], 'turn-3');
  type El = {
    action_id?: string;
    value?: string;
    positive_button?: { value: string; accessibility_label: string };
    negative_button?: { value: string };
  };
  const [native] = footerBlocks(f) as unknown as { elements: El[] }[];
  const el = native?.elements[0];
  assert.equal(el?.action_id, 'tm:vote');
  assert.equal(el?.positive_button?.value, 't1.feedback.up.turn-3');
  assert.equal(el?.negative_button?.value, 't1.feedback.down.turn-3');
  assert.equal(el?.positive_button?.accessibility_label, 'Good answer');
  const [plain] = footerBlocks(f, { nativeSources: false, nativeButtons: false }) as unknown as {
    elements: El[];
  }[];
  assert.deepEqual(
    plain?.elements.map((e) => [e.action_id, e.value]),
    [
      ['tm:up', 't1.feedback.up.turn-3'],
      ['tm:down', 't1.feedback.down.turn-3'],
    ],
  );
});
