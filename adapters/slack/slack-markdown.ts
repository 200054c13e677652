// A message's body on Slack: the Markdown in a `markdown` block, which Slack renders itself, and a
// `text` beside it for notifications, screen readers and whoever reads the thread back through
// the API (the bot's own history among them). Slack reads `text` as mrkdwn, so its three control
// characters are escaped there: nothing in the fallback can link or mention anyone.
import type { RenderedText } from '../../src/model/rendered-text.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { escapeText } from './mrkdwn-inline.ts';

/**
 * Slack's limit for the `markdown` blocks of one payload together (and for `markdown_text`): one
 * message holds at most this many characters of Markdown.
 */
export const MARKDOWN_LIMIT = 12_000;

/** What one mrkdwn `section` holds. */
const SECTION_LIMIT = 3000;

/** Slack's `markdown` block: standard Markdown, rendered by Slack. */
export type MarkdownBlock = { type: 'markdown'; text: string };

/** The fallback `text` of a message whose body is `markdown`. */
export function fallbackText(markdown: string): string {
  return escapeText(markdown);
}

/** The `markdown` block showing `markdown`, or none for blank text (Slack refuses an empty one). */
export function markdownBlocks(markdown: string): MarkdownBlock[] {
  return markdown.trim() === '' ? [] : [{ type: 'markdown', text: markdown }];
}

/** chat.postMessage / chat.update / chat.postEphemeral arguments for a rendered message. */
export function markdownMessage(text: RenderedText): { text: string; blocks: MarkdownBlock[] } {
  return { text: fallbackText(text.text), blocks: markdownBlocks(text.text) };
}

/** Markdown as mrkdwn sections, for any length: where no `markdown` block is taken. */
export function mrkdwnSections(markdown: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const chars = [...markdownToMrkdwn(markdown)];
  for (let i = 0; i < chars.length; i += SECTION_LIMIT)
    out.push({
      type: 'section',
      text: { type: 'mrkdwn', text: chars.slice(i, i + SECTION_LIMIT).join('') },
    });
  return out;
}

/**
 * Blocks for a response_url. Slack documents the `markdown` block (and `markdown_text`) for
 * messages sent through the Web API (chat.postMessage, chat.update, chat.postEphemeral), but not
 * for a response_url's payload, so there each `markdown` block becomes mrkdwn sections.
 */
export function responseUrlBlocks(
  blocks: readonly Record<string, unknown>[],
): Record<string, unknown>[] {
  return blocks.flatMap((b) =>
    b.type === 'markdown' && typeof b.text === 'string' ? mrkdwnSections(b.text) : [b],
  );
}
