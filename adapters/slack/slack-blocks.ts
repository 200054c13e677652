// The blocks under an answer: the sources as Slack's own task card with URL sources (or a context
// block with one line), and 👍/👎 as Slack's feedback_buttons (a context_actions block) or plain
// buttons. A workspace that refuses the native blocks gets the plainer ones (`plainerStyle`).
import type { Block } from '@slack/web-api';
import { linkedSources } from '../../src/core/answer-sources.ts';
import { messages } from '../../src/core/messages.ts';
import { surfaceTexts } from '../../src/core/surface-texts.ts';
import type { AnswerFooter, AnswerSource } from '../../src/model/answer-extras.ts';
import type { ActionButton } from '../../src/model/interaction.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { button, INTERACTION_ID } from './slack-cards.ts';

const text = (t: string) => ({ type: 'plain_text' as const, text: t, emoji: true });

/** Which of Slack's newer blocks a footer uses; a workspace that refuses one gets the older kind. */
export interface FooterStyle {
  /** A task_card with URL sources instead of a context line. */
  nativeSources: boolean;
  /** feedback_buttons instead of plain buttons. */
  nativeButtons: boolean;
}

export const NATIVE_FOOTER: FooterStyle = { nativeSources: true, nativeButtons: true };

/** A URL source's words are short in Slack's layout; the full label stays in the answer's text. */
const SOURCE_TEXT_MAX = 150;

/** The task card listing what the answer used, or undefined when no source has an address. */
function sourcesCard(sources: readonly AnswerSource[]): Block | undefined {
  const linked = linkedSources(sources, SOURCE_TEXT_MAX);
  if (!linked) return undefined;
  const { links, others } = linked;
  return {
    type: 'task_card',
    task_id: 'threadmind_sources',
    title: surfaceTexts.sourcesTitle,
    status: 'complete',
    sources: links.map((s) => ({ type: 'url', url: s.url, text: s.label })),
    ...(others
      ? {
          details: {
            type: 'rich_text',
            elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: others }] }],
          },
        }
      : {}),
  } as Block;
}

/** The next plainer style after Slack refused this one's blocks; undefined when none is left. */
export function plainerStyle(footer: AnswerFooter, style: FooterStyle): FooterStyle | undefined {
  if (style.nativeSources && sourcesCard(footer.sources)) return { ...style, nativeSources: false };
  if (style.nativeButtons && footer.votes !== undefined) return { ...style, nativeButtons: false };
  return undefined;
}

export function footerBlocks(footer: AnswerFooter, style: FooterStyle = NATIVE_FOOTER): Block[] {
  const blocks: Block[] = [];
  const card = style.nativeSources ? sourcesCard(footer.sources) : undefined;
  if (card) blocks.push(card);
  else if (footer.sourcesText) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: markdownToMrkdwn(footer.sourcesText.text) }],
    } as Block);
  }
  const [up, down] = footer.votes ?? [];
  if (!up || !down) return blocks;
  // The buttons carry the feedback flow's references; the dispatcher answers every `tm:` action.
  const block_id = 'threadmind_feedback';
  const vote = (b: ActionButton, accessibility_label: string) => ({
    text: text(b.label),
    value: b.ref,
    accessibility_label,
  });
  const actions = style.nativeButtons
    ? {
        type: 'context_actions',
        block_id,
        elements: [
          {
            type: 'feedback_buttons',
            action_id: `${INTERACTION_ID}:vote`,
            positive_button: vote(up, messages.goodAnswer),
            negative_button: vote(down, messages.badAnswer),
          },
        ],
      }
    : { type: 'actions', block_id, elements: [button(up, 'up'), button(down, 'down')] };
  blocks.push(actions as unknown as Block);
  return blocks;
}
