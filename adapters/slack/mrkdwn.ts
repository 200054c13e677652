// Converts Markdown as LLMs write it (CommonMark + GFM) into Slack mrkdwn, and neutralises
// broadcast mentions in model output. Slack treats &, < and > as control characters everywhere,
// code included, so they are escaped except in the link syntax generated here.
// https://api.slack.com/reference/surfaces/formatting#escaping
import { fenceCloseLine, fenceOpening } from '../../src/text/fences.ts';

/** What a Markdown horizontal rule becomes: Slack mrkdwn has no rule of its own. */
export const MRKDWN_RULE = '———';

// Slack only honours *bold*, _italic_ and ~strike~ at word boundaries, so `**한국어**는` would show
// its asterisks; a zero-width space between the marker and an adjacent letter restores the styling.
const ZWSP = '\u200b';

// Placeholders from the Private Use Area: \uE000<n>\uE000 stands for already-rendered text (code,
// links) that later passes must not touch; \uE001..\uE006 mark converted emphasis until the final
// markers are chosen. Model output has no use for these code points, so they are dropped from input.
const PLACEHOLDER_CHARS = /[\uE000-\uE006]/g;
const HELD = /\uE000(\d+)\uE000/g;
const BOLD_OPEN = '\uE001';
const BOLD_CLOSE = '\uE002';
const ITALIC_OPEN = '\uE003';
const ITALIC_CLOSE = '\uE004';
const STRIKE_OPEN = '\uE005';
const STRIKE_CLOSE = '\uE006';
const WORD_CHAR = /[\p{L}\p{N}]/u;

const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}=+[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;
const BULLET = /^([ \t]*)[-*+][ \t]+(.*)$/;
const TASK = /^\[([ xX])\][ \t]+(.*)$/;
const ORDERED = /^([ \t]*)(\d{1,9}[.)])[ \t]+(.*)$/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

const CODE_SPAN = /(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g;
const BACKSLASH_ESCAPE = /\\([!-/:-@[-`{-~])/g;
const ENTITY = /&(amp|lt|gt|quot|apos|nbsp|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});/g;
// Slack's own user and channel references, which the bot may legitimately write.
const SLACK_REFERENCE = /<(?:@[UW][A-Z0-9]+|#C[A-Z0-9]+)(?:\|[^<>]*)?>/g;
const LINK_LABEL = String.raw`\[((?:[^[\]]|\[[^[\]]*\])*)\]`;
const LINK_TARGET = String.raw`\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`;
const IMAGE = new RegExp(`!${LINK_LABEL}${LINK_TARGET}`, 'g');
const LINK = new RegExp(`${LINK_LABEL}${LINK_TARGET}`, 'g');
const AUTOLINK = /<((?:https?|ftp|mailto):[^\s<>]+)>/gi;
const EMAIL_AUTOLINK = /<([^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)>/g;
// Bare URLs are left for Slack to link, but `_` or `*` in them must not turn into emphasis.
const BARE_URL = /\b(?:https?|ftp):\/\/[^\s<>\uE000]+/gi;
const LINKABLE_SCHEME = /^(?:https?|ftp|mailto|tel):/i;

/** Escapes Slack's three control characters. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// CommonMark decodes entities in text, so `&amp;` from the model is one `&`: escaping the
// decoded form keeps it from showing up as a literal "&amp;" in Slack.
function decodeEntity(name: string): string {
  switch (name) {
    case 'amp':
      return '&';
    case 'lt':
      return '<';
    case 'gt':
      return '>';
    case 'quot':
      return '"';
    case 'apos':
      return "'";
    case 'nbsp':
      return '\u00a0';
  }
  const hex = name[1] === 'x' || name[1] === 'X';
  const code = Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
}

function decodeEntities(text: string): string {
  return text.replace(ENTITY, (_m, name: string) => decodeEntity(name));
}

function escapeUrl(url: string): string {
  return decodeEntities(url)
    .replace(/&/g, '&amp;')
    .replace(/</g, '%3C')
    .replace(/>/g, '%3E')
    .replace(/\|/g, '%7C')
    .replace(/ /g, '%20');
}

// Link labels lose their emphasis markers: Slack does not reliably style text inside <url|...>.
function plainLabel(label: string): string {
  return label.replace(/\*\*|__|~~|(?<![\p{L}\p{N}])[*_](?=\S)|(?<=\S)[*_](?![\p{L}\p{N}])/gu, '');
}

function renderLink(url: string, label: string, hold: (s: string) => string): string {
  const text = plainLabel(label).trim();
  if (!LINKABLE_SCHEME.test(url)) {
    // Slack cannot link a relative URL: keep both visible rather than drop one.
    const shown = text ? `${text} (${url})` : url;
    return hold(escapeText(decodeEntities(shown)));
  }
  const target = escapeUrl(url);
  if (!text || text === url || text === url.replace(/^(?:https?|mailto|tel):(?:\/\/)?/i, '')) {
    return hold(`<${target}>`);
  }
  return hold(`<${target}|${escapeText(decodeEntities(text))}>`);
}

function applyEmphasis(text: string): string {
  return text
    .replace(
      /\*\*\*(?=\S)(.+?)(?<=\S)\*\*\*/g,
      `${BOLD_OPEN}${ITALIC_OPEN}$1${ITALIC_CLOSE}${BOLD_CLOSE}`,
    )
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, `${BOLD_OPEN}$1${BOLD_CLOSE}`)
    .replace(
      /(?<![\p{L}\p{N}_])__(?=\S)(.+?)(?<=\S)__(?![\p{L}\p{N}_])/gu,
      `${BOLD_OPEN}$1${BOLD_CLOSE}`,
    )
    .replace(/(?<!\*)\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?!\*)/g, `${ITALIC_OPEN}$1${ITALIC_CLOSE}`)
    .replace(
      /(?<![\p{L}\p{N}_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\p{L}\p{N}_])/gu,
      `${ITALIC_OPEN}$1${ITALIC_CLOSE}`,
    )
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, `${STRIKE_OPEN}$1${STRIKE_CLOSE}`)
    .replace(/[\uE001-\uE006]/g, (mark: string, at: number, all: string) => {
      const symbol =
        mark === BOLD_OPEN || mark === BOLD_CLOSE
          ? '*'
          : mark === ITALIC_OPEN || mark === ITALIC_CLOSE
            ? '_'
            : '~';
      if (mark === BOLD_OPEN || mark === ITALIC_OPEN || mark === STRIKE_OPEN) {
        return WORD_CHAR.test(all[at - 1] ?? '') ? ZWSP + symbol : symbol;
      }
      return WORD_CHAR.test(all[at + 1] ?? '') ? symbol + ZWSP : symbol;
    });
}

/** Converts one line's inline Markdown (code spans, links, emphasis) and escapes the rest. */
function convertInline(line: string): string {
  const held: string[] = [];
  const hold = (rendered: string): string => `\uE000${held.push(rendered) - 1}\uE000`;
  const text = line
    .replace(CODE_SPAN, (span: string) => hold(escapeText(span)))
    .replace(BACKSLASH_ESCAPE, (_m, ch: string) => hold(escapeText(ch)))
    .replace(SLACK_REFERENCE, (ref: string) => hold(ref))
    .replace(IMAGE, (_m, alt: string, url: string) => renderLink(url, alt, hold))
    .replace(LINK, (_m, label: string, url: string) => renderLink(url, label, hold))
    .replace(AUTOLINK, (_m, url: string) => hold(`<${escapeUrl(url)}>`))
    .replace(EMAIL_AUTOLINK, (_m, email: string) =>
      hold(`<mailto:${escapeUrl(email)}|${escapeText(email)}>`),
    )
    .replace(BARE_URL, (url: string) => hold(escapeText(url)))
    .replace(ENTITY, (_m, name: string) => hold(escapeText(decodeEntity(name))));
  let out = applyEmphasis(escapeText(text));
  // Held pieces may hold others (a code span inside a link label): restore until none are left.
  for (let depth = 0; depth < 4 && out.includes('\uE000'); depth++) {
    out = out.replace(HELD, (_m, n: string) => held[Number(n)] ?? '');
  }
  return out;
}

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

// --- Tables ------------------------------------------------------------------------------------

function isTableStart(lines: string[], i: number): boolean {
  const header = lines[i] ?? '';
  const delimiter = lines[i + 1] ?? '';
  return header.includes('|') && delimiter.includes('|') && TABLE_DELIMITER.test(delimiter);
}

// Splits on unescaped pipes outside code spans: models often write `a|b` in a cell unescaped.
function splitRow(line: string): string[] {
  const row = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  const cells: string[] = [];
  let cell = '';
  let inCode = false;
  for (let i = 0; i < row.length; i++) {
    const ch = row[i];
    if (ch === '\\' && row[i + 1] === '|') {
      cell += '\\|';
      i++;
    } else if (ch === '|' && !inCode) {
      cells.push(cell);
      cell = '';
    } else {
      if (ch === '`') inCode = !inCode;
      cell += ch;
    }
  }
  cells.push(cell);
  return cells.map((c) => plainCell(c.trim()));
}

// Cells are shown in a code block, where Markdown markers would appear literally.
function plainCell(cell: string): string {
  return decodeEntities(
    cell
      .replace(/\\\|/g, '|')
      .replace(/<br\s*\/?>/gi, ' ')
      .replace(/\*\*(.+?)\*\*/g, '$1')
      .replace(/__(.+?)__/g, '$1')
      .replace(/`([^`]+)`/g, '$1')
      .replace(/!?\[([^\]]*)\]\(\s*<?([^()\s<>]+)>?[^)]*\)/g, (_m, label: string, url: string) =>
        label && label !== url ? `${label} (${url})` : url,
      ),
  );
}

/** Monospace display width: East Asian wide characters (Hangul, CJK, emoji) take two columns. */
function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || code === 0xfe0f) {
      continue;
    }
    const wide =
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      (code >= 0x1f300 && code <= 0x1faff) ||
      (code >= 0x20000 && code <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

type Align = 'left' | 'right' | 'center';

function pad(cell: string, width: number, align: Align): string {
  const gap = width - displayWidth(cell);
  if (gap <= 0) return cell;
  if (align === 'right') return ' '.repeat(gap) + cell;
  if (align === 'center') {
    const left = Math.floor(gap / 2);
    return ' '.repeat(left) + cell + ' '.repeat(gap - left);
  }
  return cell + ' '.repeat(gap);
}

/** Re-pads a GFM table so its columns line up in Slack's monospace code block. */
function renderTable(rows: string[]): string[] {
  const header = splitRow(rows[0] ?? '');
  const aligns: Align[] = (rows[1] ?? '')
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((spec) => {
      const s = spec.trim();
      if (s.startsWith(':') && s.endsWith(':')) return 'center';
      return s.endsWith(':') ? 'right' : 'left';
    });
  const body = rows.slice(2).map(splitRow);
  const all = [header, ...body];
  const columns = Math.max(...all.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(3, ...all.map((r) => displayWidth(r[c] ?? ''))),
  );
  const line = (cells: string[]): string =>
    `| ${widths.map((w, c) => pad(cells[c] ?? '', w, aligns[c] ?? 'left')).join(' | ')} |`.trimEnd();
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return ['```', ...[line(header), rule, ...body.map(line)].map(escapeText), '```'];
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
