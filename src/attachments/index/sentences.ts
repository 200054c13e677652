// Where sentences start and end, so a passage is made of whole ones. A sentence ends at . ! ? …
// followed by a space and not by a lower-case letter (not after an abbreviation or an initial), at
// 。！？, at a blank line, and before a list item. Text without any of these (code, CSV) falls back
// to lines.

export interface Span {
  start: number;
  end: number;
}

// Group 1: Latin end punctuation (+ closing quotes) followed by spaces. Group 2: CJK end
// punctuation. Group 3: a blank line. Group 4: a newline before a bullet or "1." / "a)" item.
const BOUNDARY =
  /([.!?…]['"’”)\]]*)\s+|([。！？]['"’”」』)]*)\s*|\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*•·▪–]|\d{1,3}[.)]|[a-z][.)])\s)/gu;
const ABBREVIATIONS = new Set(
  'e.g i.e etc vs cf fig no nr mr mrs ms dr prof st approx ca bzw vgl usw z.b d.h u.a s.o ggf inkl abs'.split(
    ' ',
  ),
);
const LOWER = /\p{Ll}/u;

function abbreviationBefore(text: string, dot: number): boolean {
  let i = dot;
  while (i > 0 && /[\p{L}.]/u.test(text.charAt(i - 1))) i--;
  const word = text.slice(i, dot).toLowerCase();
  return word.length === 1 || ABBREVIATIONS.has(word);
}

/** Sentence spans of `text` (offsets into it), trimmed of surrounding white space, in order. */
export function sentenceSpans(text: string): Span[] {
  const out: Span[] = [];
  let from = 0;
  const push = (end: number) => {
    let s = from;
    let e = end;
    while (s < e && /\s/.test(text.charAt(s))) s++;
    while (e > s && /\s/.test(text.charAt(e - 1))) e--;
    if (e > s) out.push({ start: s, end: e });
  };
  const re = new RegExp(BOUNDARY);
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const cut = m.index + (m[1] ?? m[2] ?? '').length;
    if (m[1] !== undefined) {
      const next = text.charAt(m.index + m[0].length);
      if (m[1].startsWith('.') && abbreviationBefore(text, m.index)) continue;
      if (LOWER.test(next)) continue;
    }
    push(cut);
    from = m.index + m[0].length;
  }
  push(text.length);
  return out;
}

/** `span` split at line breaks, for a "sentence" too long to show whole (code, tables). */
export function lineSpans(text: string, span: Span): Span[] {
  const out: Span[] = [];
  let s = span.start;
  for (let i = span.start; i <= span.end; i++) {
    if (i === span.end || text.charAt(i) === '\n') {
      const piece = text.slice(s, i);
      const lead = piece.length - piece.trimStart().length;
      const body = piece.trim();
      if (body) out.push({ start: s + lead, end: s + lead + body.length });
      s = i + 1;
    }
  }
  return out;
}
