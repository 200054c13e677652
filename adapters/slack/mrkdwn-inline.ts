// Inline Markdown (code spans, links, images, autolinks, emphasis) into Slack mrkdwn, with the
// escaping Slack needs: &, < and > are control characters everywhere, code included, so they are
// escaped except in the link syntax generated here.
// https://api.slack.com/reference/surfaces/formatting#escaping
import { decodeEntities, decodeEntity, ENTITY } from '../../src/text/entities.ts';

// Slack only honours *bold*, _italic_ and ~strike~ at word boundaries, so `**한국어**는` would show
// its asterisks; a zero-width space between the marker and an adjacent letter restores the styling.
const ZWSP = '\u200b';

// Placeholders from the Private Use Area: \uE000<n>\uE000 stands for already-rendered text (code,
// links) that later passes must not touch; \uE001..\uE006 mark converted emphasis until the final
// markers are chosen. Model output has no use for these code points, so they are dropped from input.
export const PLACEHOLDER_CHARS = /[\uE000-\uE006]/g;
const HELD = /\uE000(\d+)\uE000/g;
const BOLD_OPEN = '\uE001';
const BOLD_CLOSE = '\uE002';
const ITALIC_OPEN = '\uE003';
const ITALIC_CLOSE = '\uE004';
const STRIKE_OPEN = '\uE005';
const STRIKE_CLOSE = '\uE006';
const WORD_CHAR = /[\p{L}\p{N}]/u;
const OPENERS = [BOLD_OPEN, ITALIC_OPEN, STRIKE_OPEN];
const MARKER_SYMBOL: Readonly<Record<string, string>> = {
  [BOLD_OPEN]: '*',
  [BOLD_CLOSE]: '*',
  [ITALIC_OPEN]: '_',
  [ITALIC_CLOSE]: '_',
  [STRIKE_OPEN]: '~',
  [STRIKE_CLOSE]: '~',
};

const CODE_SPAN = /(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g;
const BACKSLASH_ESCAPE = /\\([!-/:-@[-`{-~])/g;
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
export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
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
      const symbol = MARKER_SYMBOL[mark] ?? '';
      if (OPENERS.includes(mark)) return WORD_CHAR.test(all[at - 1] ?? '') ? ZWSP + symbol : symbol;
      return WORD_CHAR.test(all[at + 1] ?? '') ? symbol + ZWSP : symbol;
    });
}

/** Converts one line's inline Markdown (code spans, links, emphasis) and escapes the rest. */
export function convertInline(line: string): string {
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
