// Mammoth's HTML → sections split at <h1>…<h6>, as plain text. Mammoth writes simple, regular
// HTML (no attributes on headings beyond ids, entities only for & < > "), so patterns suffice.
import type { ExtractedSection } from '../types.ts';

const HEADING = /<h([1-6])(?:\s[^>]*)?>([\s\S]*?)<\/h\1>/g;

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X'
          ? Number.parseInt(name.slice(2), 16)
          : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

export function htmlToText(html: string): string {
  const text = html
    // A cell's last paragraph ends the cell, not the line: "Owner<TAB>Task".
    .replace(/<\/p>(\s*<\/t[dh]>)/gi, '$1')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/t[dh]>/gi, '\t')
    .replace(/<\/(p|li|tr|h[1-6]|table|ul|ol)>/gi, '\n')
    .replace(/<[^>]*>/g, '');
  return decodeEntities(text)
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Sections in document order; the heading text is also the first line of its section's text. */
export function htmlSections(html: string): ExtractedSection[] {
  const sections: ExtractedSection[] = [];
  let heading: string | undefined;
  let from = 0;
  const push = (bodyHtml: string) => {
    const body = htmlToText(bodyHtml);
    const text = heading ? (body ? `${heading}\n\n${body}` : heading) : body;
    if (text.trim() === '') return;
    sections.push(heading ? { text, heading } : { text });
  };
  for (const m of html.matchAll(HEADING)) {
    push(html.slice(from, m.index));
    heading = htmlToText(m[2] ?? '').replace(/\s+/g, ' ') || undefined;
    from = m.index + m[0].length;
  }
  push(html.slice(from));
  return sections;
}
