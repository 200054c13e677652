// What a turn is told about the files in its reach: a compact list in the system prompt, and the
// images the scope carries.
import type { Owner } from '../model/thread-ref.ts';
import type { AttachmentIndex } from './index/index.ts';
import { ownerLabel } from './search-result-text.ts';
import type { AttachmentRecord } from './types.ts';

const MAX_LISTED = 30;

function describeFile(f: AttachmentRecord): string {
  const kind =
    f.kind === 'pdf' ? 'PDF' : f.kind === 'docx' ? 'Word' : f.kind === 'image' ? 'image' : 'text';
  const pages = f.pages ? `, ${f.pages} pages` : '';
  return `${f.filename} (${kind}${pages}, ${ownerLabel(f.owner)})`;
}

export async function attachmentContext(
  index: AttachmentIndex,
  owners: readonly Owner[],
): Promise<{ images: string[]; section?: string }> {
  const files = await index.listFiles(owners);
  if (files.length === 0) return { images: [] };
  const listed = files.slice(-MAX_LISTED).map(describeFile);
  const more = files.length > MAX_LISTED ? ` (and ${files.length - MAX_LISTED} older files)` : '';
  const section = [
    `Files in this conversation${more}: ${listed.join('; ')}.`,
    'Use search_attachment to read documents and analyze_image to look at images before answering questions about them; cite file names and pages. When search_attachment answers NOT IN THE FILES, tell the person the files do not cover the question rather than answering from weaker passages.',
  ].join('\n');
  return { images: files.filter((f) => f.kind === 'image').map((f) => f.filename), section };
}
