// What search_attachment tells the model: passages with where they come from, or plainly that the
// files do not cover the question — an answer in its own right, so the model says so instead of
// stitching one together from weak matches.
import type { Owner } from '../model/thread-ref.ts';
import { escapeData } from '../text/data-block.ts';
import type { AttachmentRecord, SearchHit } from './types.ts';

const WHERE: Record<Owner['kind'], string> = {
  session: 'posted in this thread',
  channel: 'posted in this channel',
  project: 'shared with the workspace',
};

export function ownerLabel(owner: Owner): string {
  return WHERE[owner.kind];
}

export const NOTHING_SHARED =
  'No readable files have been shared in this thread, its channel or the workspace yet, so there is nothing to search.';

/** The start of the answer when nothing matched: `describeToolOutput` keeps this line. */
export function notCovered(query: string, files: readonly AttachmentRecord[]): string {
  // File names are people's words: they must not pass for a data block's edge either.
  const names = escapeData(files.map((f) => f.filename).join(', '));
  return [
    `NOT IN THE FILES: no passage of ${names} answers "${query}" closely enough.`,
    'Tell the person plainly that the shared files do not cover this. Do not piece an answer together from loosely related passages, and do not present general knowledge as if it came from the files.',
    'Search once more only if the question can be put in clearly different words the files might use.',
  ].join('\n');
}

/** "[1] handbook.pdf, page 5, section "Leave" (posted in this thread)", where the best match is. */
function header(h: SearchHit, i: number): string {
  const where = [
    h.page !== undefined ? `page ${h.page}` : '',
    h.heading ? `section "${h.heading}"` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const whole = h.whole ? ', whole file' : '';
  return escapeData(
    `[${i + 1}] ${h.filename}${where ? `, ${where}` : ''} (${ownerLabel(h.owner)})${whole}`,
  );
}

/** The passages in a data block, each under its file, page and section. */
export function passagesText(hits: readonly SearchHit[]): string {
  const blocks = hits.map((h, i) => `${header(h, i)}\n${escapeData(h.passage)}`);
  return `<data source="search_attachment">\n${blocks.join('\n\n')}\n</data>\nCite the file name and page or section of what you use. If these passages do not answer the question, say that the files do not cover it.`;
}

/** Nothing matched closely, but the files are short enough to read whole. */
export function wholeFilesText(query: string, hits: readonly SearchHit[]): string {
  return `No passage matched "${query}" closely; the files are short, so here they are whole. If they do not answer the question, tell the person that the files do not cover it.\n${passagesText(hits)}`;
}
