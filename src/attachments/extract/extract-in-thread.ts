// The extraction itself, run inside the worker. Parsers are loaded on first use, so a worker that
// only ever reads text files never loads pdf.js.
import type { ExtractedDocument, ExtractLimits } from '../types.ts';
import { extractText } from './extract-text.ts';
import { refuseOle } from './ole.ts';

export type DocumentKind = 'pdf' | 'docx' | 'text';

export async function extractInThread(
  bytes: Uint8Array,
  kind: DocumentKind,
  filename: string,
  limits: ExtractLimits,
): Promise<ExtractedDocument> {
  // A password-protected .docx is an OLE file whatever it is called or sniffed as.
  refuseOle(bytes);
  switch (kind) {
    case 'pdf':
      return (await import('./extract-pdf.ts')).extractPdf(bytes, limits);
    case 'docx':
      return (await import('./extract-docx.ts')).extractDocx(bytes, limits);
    case 'text':
      return extractText(bytes, filename, limits);
  }
}
