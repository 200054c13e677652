// Markdown into Slack mrkdwn for the few places that take no `markdown` block: a modal's text, a
// context line, a section's fields, a slash command's reply and a file shown inline (a message's
// text, longer than a markdown block holds). Answers are Markdown in a `markdown` block and Slack
// renders them (slack-markdown.ts). The bot's own words are short: fences, headings, quotes, lists
// and inline Markdown (mrkdwn-inline.ts) are enough here.
import { fenceCloseLine, fenceOpening } from '../../src/text/fences.ts';
import { convertInline, escapeText, PLACEHOLDER_CHARS } from './mrkdwn-inline.ts';

const HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;
const BULLET = /^([ \t]*)[-*+][ \t]+(.*)$/;
const ORDERED = /^([ \t]*)(\d{1,9}[.)])[ \t]+(.*)$/;

// Bold inside a heading would nest asterisks inside the heading's own bold and break both.
function convertHeading(text: string): string {
  const inner = text
    .replace(/\*\*\*(.+?)\*\*\*/g, '*$1*')
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/__(.+?)__/g, '$1')
    .trim();
  return inner ? `*${convertInline(inner)}*` : '';
}

function convertLine(line: string): string {
  if (line.trim() === '') return '';
  const heading = HEADING.exec(line);
  if (heading) return convertHeading(heading[1] ?? '');
  const quote = QUOTE.exec(line);
  if (quote) {
    // Slack has one level of quote: nested `> >` collapse into it.
    const rest = (quote[1] ?? '').replace(/^(?:[ \t]*>)+[ \t]?/, '');
    const inner = convertLine(rest);
    return inner ? `> ${inner}` : '>';
  }
  const bullet = BULLET.exec(line);
  if (bullet) {
    const indent = bullet[1] ?? '';
    return `${indent}• ${convertInline(bullet[2] ?? '')}`;
  }
  const ordered = ORDERED.exec(line);
  if (ordered) return `${ordered[1] ?? ''}${ordered[2] ?? ''} ${convertInline(ordered[3] ?? '')}`;
  return convertInline(line);
}

/**
 * Converts Markdown to Slack mrkdwn. Code spans and fenced blocks pass through unchanged apart
 * from the escaping Slack requires (a fence's language is dropped: mrkdwn has no highlighting).
 */
export function markdownToMrkdwn(md: string): string {
  const lines = md.replace(/\r\n?/g, '\n').replace(PLACEHOLDER_CHARS, '').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = fenceOpening(line);
    if (fence) {
      const close = fenceCloseLine(lines, i + 1, fence);
      // A fence indented under a list item owns that indentation (as CommonMark renders it).
      const owned = new RegExp(`^[ \\t]{0,${fence.indent.length}}`);
      const body = lines.slice(i + 1, close).map((l) => escapeText(l.replace(owned, '')));
      out.push('```', ...body, '```');
      i = close;
      continue;
    }
    out.push(convertLine(line));
  }
  return out.join('\n');
}
