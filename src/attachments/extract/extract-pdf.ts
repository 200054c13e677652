// PDFs through pdf-parse (pdf.js): one section per page, stopping at the page and character limits.
// pdf.js runs in this thread (Node has no pdf.js web worker), which is already the extraction worker.
// Refusals: password → encrypted; unparseable → corrupt; zero pages → empty; pages whose text is
// blank or nearly so (a scan, even with stamped page numbers) → no_text_layer. Pages that fail on
// their own are skipped and named in `partial`.
import { createRequire } from 'node:module';
import path from 'node:path';
import { PDFParse } from 'pdf-parse';
import type { ExtractedDocument, ExtractLimits } from '../types.ts';
import { formatCount, SectionCollector } from './char-budget.ts';
import { ExtractFailure } from './failure.ts';

// Pages read per pdf-parse call: each call walks the whole page list once, so one call per page
// would cost pages² on big files; a failing batch is retried page by page.
const BATCH = 20;
// Fewer non-blank characters per page than this on average means a scan (page numbers at most).
const MIN_CHARS_PER_PAGE = 4;

/** pdf.js reads fonts and CMaps from these folders (never fetch: this machine may be offline). */
function pdfjsAssets(): { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string } {
  const require = createRequire(import.meta.url);
  const fromParser = createRequire(require.resolve('pdf-parse'));
  const root = path.dirname(fromParser.resolve('pdfjs-dist/package.json'));
  return {
    standardFontDataUrl: `${path.join(root, 'standard_fonts')}${path.sep}`,
    cMapUrl: `${path.join(root, 'cmaps')}${path.sep}`,
    wasmUrl: `${path.join(root, 'wasm')}${path.sep}`,
  };
}

function classify(err: unknown): ExtractFailure {
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return new ExtractFailure('encrypted', '', { cause: err });
  if (err instanceof ExtractFailure) return err;
  return new ExtractFailure('corrupt', '', { cause: err });
}

function nonBlank(text: string): number {
  return text.replace(/\s+/g, '').length;
}

interface PageText {
  num: number;
  text: string;
}

async function readPages(
  parser: PDFParse,
  first: number,
  last: number,
): Promise<{ pages: PageText[]; failed: number }> {
  try {
    const result = await parser.getText({ first, last });
    return { pages: result.pages, failed: 0 };
  } catch {
    const pages: PageText[] = [];
    let failed = 0;
    for (let num = first; num <= last; num++) {
      try {
        pages.push(...(await parser.getText({ partial: [num] })).pages);
      } catch {
        failed++;
      }
    }
    return { pages, failed };
  }
}

export async function extractPdf(
  bytes: Uint8Array,
  limits: ExtractLimits,
): Promise<ExtractedDocument> {
  const parser = new PDFParse({
    data: bytes,
    ...pdfjsAssets(),
    verbosity: 0,
    // Hostile files may carry PostScript functions: don't compile them with eval.
    isEvalSupported: false,
    useSystemFonts: false,
  });
  try {
    let total: number;
    try {
      // Page 0 does not exist: this only opens the document and counts its pages.
      total = (await parser.getText({ partial: [0] })).total;
    } catch (err) {
      throw classify(err);
    }
    if (total === 0) throw new ExtractFailure('empty');

    const toRead = Math.min(total, Math.max(1, limits.maxPages));
    const collector = new SectionCollector(limits.maxChars);
    let read = 0;
    let failed = 0;
    let blankless = 0;
    let lastPage = 0;
    let brokenFrom: number | undefined;
    for (let first = 1; first <= toRead && !collector.full; first += BATCH) {
      const batch = await readPages(parser, first, Math.min(toRead, first + BATCH - 1));
      failed += batch.failed;
      // A whole batch of unreadable pages: the page tree is broken from here on.
      if (batch.pages.length === 0) {
        brokenFrom = first;
        break;
      }
      for (const page of batch.pages) {
        if (collector.full) break;
        read++;
        lastPage = page.num;
        const text = page.text.trim();
        blankless += nonBlank(text);
        collector.add({ text, page: page.num });
      }
    }

    if (read === 0) throw new ExtractFailure('corrupt', 'none of its pages could be read');
    if (blankless < read * MIN_CHARS_PER_PAGE) throw new ExtractFailure('no_text_layer');

    const notes: string[] = [];
    if (collector.full) {
      notes.push(
        `only the first ${formatCount(limits.maxChars)} characters were read (up to page ${formatCount(lastPage)} of ${formatCount(total)})`,
      );
    } else if (toRead < total) {
      notes.push(`only the first ${formatCount(toRead)} of ${formatCount(total)} pages were read`);
    }
    if (brokenFrom !== undefined) {
      notes.push(
        `pages ${formatCount(brokenFrom)} to ${formatCount(total)} could not be read because the file looks damaged`,
      );
    } else if (failed > 0) {
      notes.push(`${formatCount(failed)} of its pages could not be read because they look damaged`);
    }
    const doc: ExtractedDocument = { kind: 'pdf', sections: collector.sections, pages: total };
    if (notes.length > 0) doc.partial = notes.join(', and ');
    return doc;
  } finally {
    await parser.destroy().catch(() => undefined);
  }
}
