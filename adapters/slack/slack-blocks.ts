// The blocks under an answer: a context block with the sources, and 👍/👎 as Slack's
// feedback_buttons (a context_actions block) or, where a workspace refuses those, plain buttons.
import type { Block } from '@slack/web-api';
import type { AnswerFooter, Vote } from '../../src/model/answer-extras.ts';

/** action_id of the feedback buttons, plain or native; the value is `<vote>:<turn id>`. */
export const FEEDBACK_ACTION = 'threadmind_feedback';
/** callback_id of the modal that asks why an answer was not good. */
export const FEEDBACK_REASON_CALLBACK = 'threadmind_feedback_reason';

const text = (t: string) => ({ type: 'plain_text' as const, text: t, emoji: true });

export function voteValue(vote: Vote, id: string): string {
  return `${vote}:${id}`;
}

export function parseVoteValue(
  value: string | undefined,
): { vote: string; id: string } | undefined {
  const cut = value?.indexOf(':') ?? -1;
  if (!value || cut <= 0) return undefined;
  return { vote: value.slice(0, cut), id: value.slice(cut + 1) };
}

export function footerBlocks(footer: AnswerFooter, o: { plain?: boolean } = {}): Block[] {
  const blocks: Block[] = [];
  if (footer.sourcesText) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: footer.sourcesText.text }],
    } as Block);
  }
  const id = footer.feedbackId;
  if (id === undefined) return blocks;
  const block_id = `threadmind_feedback:${id}`;
  const actions: Record<string, unknown> = o.plain
    ? {
        type: 'actions',
        block_id,
        elements: [
          {
            type: 'button',
            action_id: `${FEEDBACK_ACTION}_up`,
            text: text('👍'),
            value: voteValue('up', id),
          },
          {
            type: 'button',
            action_id: `${FEEDBACK_ACTION}_down`,
            text: text('👎'),
            value: voteValue('down', id),
          },
        ],
      }
    : {
        type: 'context_actions',
        block_id,
        elements: [
          {
            type: 'feedback_buttons',
            action_id: FEEDBACK_ACTION,
            positive_button: {
              text: text('👍'),
              value: voteValue('up', id),
              accessibility_label: 'Good answer',
            },
            negative_button: {
              text: text('👎'),
              value: voteValue('down', id),
              accessibility_label: 'Not a good answer',
            },
          },
        ],
      };
  blocks.push(actions as unknown as Block);
  return blocks;
}

/** The optional "what was wrong?" modal after a 👎. */
export function reasonView(
  place: { id: string; projectId: string; channel: string },
  prompt: string,
) {
  return {
    type: 'modal' as const,
    callback_id: FEEDBACK_REASON_CALLBACK,
    private_metadata: JSON.stringify(place),
    title: text('Feedback'),
    submit: text('Send'),
    close: text('Skip'),
    blocks: [
      {
        type: 'input',
        block_id: 'reason',
        optional: true,
        label: text(prompt),
        element: {
          type: 'plain_text_input',
          action_id: 'value',
          multiline: true,
          max_length: 1000,
        },
      },
    ],
  };
}
