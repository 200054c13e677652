// Plain text, Markdown, CSV, JSON and source code: decode, then split Markdown at its headings.
import type { ExtractedDocument, ExtractLimits } from '../types.ts';
import { charsPartial, SectionCollector } from './char-budget.ts';
import { decodeTextOrFail } from './decode-text.ts';
import { ExtractFailure } from './failure.ts';
import { isMarkdownName, markdownSections } from './markdown-sections.ts';

export function extractText(
  bytes: Uint8Array,
  filename: string,
  limits: ExtractLimits,
): ExtractedDocument {
  const decoded = decodeTextOrFail(bytes);
  // One newline convention, so character offsets mean the same for every file.
  const text = decoded.text.replace(/\r\n?/g, '\n');
  if (text.trim() === '') throw new ExtractFailure('empty');

  const collector = new SectionCollector(limits.maxChars);
  // Cut before splitting: a huge file costs nothing past the limit.
  const kept = text.length > limits.maxChars ? text.slice(0, limits.maxChars) : text;
  const sections = isMarkdownName(filename) ? markdownSections(kept) : [{ text: kept }];
  for (const section of sections) collector.add(section);

  const doc: ExtractedDocument = {
    kind: 'text',
    sections: collector.sections,
    encoding: decoded.encoding,
  };
  if (text.length > limits.maxChars) doc.partial = charsPartial(limits.maxChars, text.length);
  return doc;
}
