// Markdown split at its headings, so search hits can say which part of a README they came from.
import type { ExtractedSection } from '../types.ts';

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function isMarkdownName(filename: string): boolean {
  return /\.(md|markdown|mdown|mkd|mdx)$/i.test(filename);
}

/**
 * One section per heading (the heading line is kept as the section's first line so the text stays
 * whole); text before the first heading has no `heading`. `#` lines inside code fences and YAML
 * front matter are not headings.
 */
export function markdownSections(text: string): ExtractedSection[] {
  const lines = text.split('\n');
  const sections: ExtractedSection[] = [];
  let heading: string | undefined;
  let body: string[] = [];
  let fence: string | undefined;
  let start = 0;

  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(l));
    if (end > 0) start = end + 1;
    body = lines.slice(0, start);
  }

  const flush = () => {
    const joined = body.join('\n');
    if (joined.trim() !== '')
      sections.push(heading === undefined ? { text: joined } : { text: joined, heading });
    body = [];
  };

  for (let i = start; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      if (fenceMatch?.[1]?.startsWith(fence)) fence = undefined;
      body.push(line);
      continue;
    }
    if (fenceMatch?.[1]) {
      fence = fenceMatch[1];
      body.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      flush();
      heading = (atx[2] ?? '').trim() || undefined;
      body.push(line);
      continue;
    }
    // "Title\n=====": the previous line (a paragraph line) becomes the heading.
    const prev = body[body.length - 1];
    if (SETEXT.test(line) && prev !== undefined && prev.trim() !== '' && !ATX.test(prev)) {
      body.pop();
      flush();
      heading = prev.trim();
      body.push(prev, line);
      continue;
    }
    body.push(line);
  }
  flush();
  return sections;
}
