// Converts Markdown as LLMs write it (CommonMark + GFM) into Slack mrkdwn, block by block (fences,
// tables in mrkdwn-table.ts, headings, quotes, lists; inline Markdown in mrkdwn-inline.ts), and
// neutralises broadcast mentions in model output.
import { fenceCloseLine, fenceOpening } from '../../src/text/fences.ts';
import { convertInline, escapeText, PLACEHOLDER_CHARS } from './mrkdwn-inline.ts';
import { isTableStart, renderTable } from './mrkdwn-table.ts';

/** What a Markdown horizontal rule becomes: Slack mrkdwn has no rule of its own. */
export const MRKDWN_RULE = '———';

const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}=+[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;
const BULLET = /^([ \t]*)[-*+][ \t]+(.*)$/;
const TASK = /^\[([ xX])\][ \t]+(.*)$/;
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
  if (RULE.test(line)) return MRKDWN_RULE;
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
    const item = bullet[2] ?? '';
    const task = TASK.exec(item);
    if (task) return `${indent}${task[1] === ' ' ? '☐' : '☑'} ${convertInline(task[2] ?? '')}`;
    return `${indent}• ${convertInline(item)}`;
  }
  const ordered = ORDERED.exec(line);
  if (ordered) return `${ordered[1] ?? ''}${ordered[2] ?? ''} ${convertInline(ordered[3] ?? '')}`;
  return convertInline(line);
}
// --- Blocks ------------------------------------------------------------------------------------

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
    if (isTableStart(lines, i)) {
      const rows = [line, lines[i + 1] ?? ''];
      for (i += 2; i < lines.length && (lines[i] ?? '').includes('|') && lines[i]?.trim(); i++) {
        rows.push(lines[i] ?? '');
      }
      i--;
      out.push(...renderTable(rows));
      continue;
    }
    const next = lines[i + 1];
    if (next !== undefined && SETEXT_UNDERLINE.test(next) && isParagraphLine(line)) {
      out.push(convertHeading(line.trim()));
      i++;
      continue;
    }
    out.push(convertLine(line));
  }
  return out.join('\n');
}

function isParagraphLine(line: string): boolean {
  return (
    line.trim() !== '' &&
    !RULE.test(line) &&
    !HEADING.test(line) &&
    !QUOTE.test(line) &&
    !BULLET.test(line) &&
    !ORDERED.test(line)
  );
}

// --- Mentions ----------------------------------------------------------------------------------

// `<!here>`, `<!channel>`, `<!everyone>`, legacy `<!group>` and user groups `<!subteam^ID|@name>`,
// raw or already entity-escaped. `<!date^…>` and user mentions `<@U…>` are left alone.
const SPECIAL_MENTION =
  /(?:<|&lt;)!(here|channel|everyone|group|subteam\^[^|<>&\s]*)(?:\|((?:(?!&gt;)[^<>])*))?(?:>|&gt;)/gi;
const PLAIN_BROADCAST = /(?<![\p{L}\p{N}_.@])@(here|channel|everyone)(?![\p{L}\p{N}_])/giu;
// Fullwidth commercial at: reads as "@" but Slack only parses ASCII "@" (and `<!…>`) as mentions.
const SAFE_AT = '\uff20';

/**
 * Neutralises broadcast mentions in model output so it can never ping a channel or a group:
 * `<!here>`/`<!channel>`/`<!everyone>`/`<!subteam^…>` and plain `@here`/`@channel`/`@everyone`
 * become visible text with a fullwidth `＠`. User mentions `<@U…>` are kept. Changes nothing else,
 * so it suits mrkdwn (after {@link markdownToMrkdwn}) and raw `markdown_text` alike, code included.
 */
export function escapeBroadcasts(text: string): string {
  return text
    .replace(SPECIAL_MENTION, (_m, keyword: string, label: string | undefined) => {
      const shown = label?.trim();
      if (shown) return shown.includes('@') ? shown.replace(/@/g, SAFE_AT) : SAFE_AT + shown;
      const name = keyword.toLowerCase().startsWith('subteam')
        ? 'usergroup'
        : keyword.toLowerCase();
      return SAFE_AT + name;
    })
    .replace(PLAIN_BROADCAST, `${SAFE_AT}$1`);
}
