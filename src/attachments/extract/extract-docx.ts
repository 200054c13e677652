// Word documents: ZIP checks first (zip bombs, encrypted or legacy Office files), then mammoth's
// HTML, split at the headings Word's Heading 1–6 styles produce.
import mammoth from 'mammoth';
import type { ExtractedDocument, ExtractLimits } from '../types.ts';
import { charsPartial, SectionCollector } from './char-budget.ts';
import { ExtractFailure } from './failure.ts';
import { htmlSections } from './html-sections.ts';
import { refuseOle } from './ole.ts';
import { checkDocxZip } from './zip-guard.ts';

// Images are neither read nor inlined as base64: only the text is wanted.
const skipImages = mammoth.images.imgElement(async () => ({ src: '' }));

export async function extractDocx(
  bytes: Uint8Array,
  limits: ExtractLimits,
): Promise<ExtractedDocument> {
  refuseOle(bytes);
  await checkDocxZip(bytes, limits.maxUnzippedBytes);

  let html: string;
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    html = (await mammoth.convertToHtml({ buffer }, { convertImage: skipImages })).value;
  } catch (err) {
    if (err instanceof RangeError) throw err;
    throw new ExtractFailure('corrupt', 'it is not a valid Word document', { cause: err });
  }

  const sections = htmlSections(html);
  const total = sections.reduce((n, s) => n + s.text.length, 0);
  if (total === 0) throw new ExtractFailure('empty');
  const collector = new SectionCollector(limits.maxChars);
  for (const s of sections) collector.add(s);

  const doc: ExtractedDocument = { kind: 'docx', sections: collector.sections };
  if (collector.full) doc.partial = charsPartial(limits.maxChars, total);
  return doc;
}
