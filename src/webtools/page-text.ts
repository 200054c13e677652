// A fetched page's text through the files' extractors: PDF and plain text in the extraction
// workers, HTML (scripts, styles and markup dropped) split at its headings like a DOCX's HTML.

import { htmlSections } from '../attachments/extract/html-sections.ts';
import { decodeText, extractDocument } from '../attachments/extract/index.ts';
import { sniff } from '../attachments/sniff.ts';
import type { ExtractedSection, ExtractLimits } from '../attachments/types.ts';
import type { FetchedPage } from '../net/guarded-fetch.ts';

export interface PageText {
  title: string;
  sections: ExtractedSection[];
  kind: 'html' | 'pdf' | 'text';
}

export class UnreadablePage extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadablePage';
  }
}

const NOT_TEXT = /<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;

function htmlTitle(html: string): string {
  const m = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  return (m?.[1] ?? '').replace(/\s+/g, ' ').trim();
}

function kindOf(page: FetchedPage): PageText['kind'] | undefined {
  const sniffed = sniff(page.body).kind;
  if (sniffed === 'pdf') return 'pdf';
  if (sniffed === 'html' || /html|xml/.test(page.contentType)) return 'html';
  if (sniffed === 'text') return 'text';
  return undefined;
}

/** The page's title and text sections; UnreadablePage when it is neither HTML, PDF nor text. */
export async function pageText(page: FetchedPage, limits: ExtractLimits): Promise<PageText> {
  const kind = kindOf(page);
  const name = new URL(page.url).pathname.split('/').pop() || new URL(page.url).hostname;
  if (kind === undefined)
    throw new UnreadablePage(
      `${page.url} is not a web page, PDF or text (${page.contentType || 'unknown type'}).`,
    );
  if (kind === 'html') {
    const html = decodeText(page.body, name).text;
    const sections = htmlSections(html.replace(NOT_TEXT, ' '));
    return { title: htmlTitle(html) || name, sections, kind };
  }
  const doc = await extractDocument(new Uint8Array(page.body), kind, name, limits);
  return { title: name, sections: doc.sections, kind };
}
