// GFM tables in Slack, which has none: the table in a code block, its cells plain text, its
// columns padded to line up in monospace (East Asian wide characters count two columns).
import { decodeEntities, escapeText } from './mrkdwn-inline.ts';

const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

export function isTableStart(lines: string[], i: number): boolean {
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
export function renderTable(rows: string[]): string[] {
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
