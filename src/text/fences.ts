// Fenced code blocks (CommonMark "```" / "~~~"), read one way for everything that must agree on
// where code starts and ends: splitting an answer into messages, streaming it (close a block left
// open, reopen it in the next message) and converting it to Slack mrkdwn.
//
// A line opens a block when, after any indentation, it has three or more backticks or tildes; the
// rest of the line is the info string, which for backtick fences may not contain a backtick
// ("```a```" on one line is inline code). A block closes at the first later line holding only a
// run of the same character at least as long as the opening one (plus whitespace); without such
// a line it runs to the end of the text.

const OPEN_FENCE = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const CLOSE_FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/** An opening fence line, taken apart. */
export interface FenceOpening {
  /** Whitespace before the fence characters. */
  indent: string;
  /** The fence characters, e.g. '```' or '~~~~'. */
  marks: string;
  /** The info string, trimmed (e.g. 'ts'); empty when there is none. */
  info: string;
  /** The opening line as written, trailing whitespace dropped (e.g. '```ts'): reopens the block. */
  line: string;
}

/** A block whose opening line was seen; offsets are into the scanned text. */
export interface OpenFence extends FenceOpening {
  /** Index of the opening fence line. */
  start: number;
  /** Index just after the opening line's newline. */
  bodyStart: number;
}

/** A block with its closing line. */
export interface ClosedFence extends OpenFence {
  /** Index of the closing fence line. */
  closeStart: number;
  /** Index just after the closing line (and its newline, if any). */
  end: number;
}

export interface FenceScan {
  /** Closed blocks, in order. */
  closed: ClosedFence[];
  /** The block the text ends inside, if any. */
  open: OpenFence | null;
}

/** The opening fence on `line` (one line, no newline), or null when the line opens no block. */
export function fenceOpening(line: string): FenceOpening | null {
  const m = OPEN_FENCE.exec(line);
  if (!m) return null;
  const indent = m[1] ?? '';
  const marks = m[2] ?? '';
  const rest = m[3] ?? '';
  if (marks.startsWith('`') && rest.includes('`')) return null;
  return { indent, marks, info: rest.trim(), line: line.trimEnd() };
}

/** Whether `line` closes the block `open` began. */
export function closesFence(line: string, open: FenceOpening): boolean {
  const marks = CLOSE_FENCE.exec(line)?.[1];
  return marks !== undefined && marks[0] === open.marks[0] && marks.length >= open.marks.length;
}

/** The line that closes `open` (searching `lines` from `from`), or `lines.length` if none does. */
export function fenceCloseLine(lines: readonly string[], from: number, open: FenceOpening): number {
  for (let i = from; i < lines.length; i++) {
    if (closesFence(lines[i] ?? '', open)) return i;
  }
  return lines.length;
}

/** What closes `open`: its indentation and fence characters. */
export function closingFence(open: FenceOpening): string {
  return open.indent + open.marks;
}

/** Every fenced block of `text`, with offsets; a trailing `\r` on a line is ignored. */
export function scanFences(text: string): FenceScan {
  const closed: ClosedFence[] = [];
  let open: OpenFence | null = null;
  let i = 0;
  while (i < text.length) {
    const nl = text.indexOf('\n', i);
    const lineEnd = nl === -1 ? text.length : nl;
    const next = nl === -1 ? text.length : nl + 1;
    const line = text.slice(i, lineEnd).replace(/\r$/, '');
    if (open === null) {
      const opening = fenceOpening(line);
      if (opening) open = { ...opening, start: i, bodyStart: next };
    } else if (closesFence(line, open)) {
      closed.push({ ...open, closeStart: i, end: next });
      open = null;
    }
    i = next;
  }
  return { closed, open };
}

/**
 * The opening fence line (e.g. '```ts') if `text` ends inside an unclosed fenced code block, else
 * null. Lets a streaming renderer close the block temporarily so a partial answer still renders.
 */
export function openFenceAt(text: string): string | null {
  return scanFences(text).open?.line ?? null;
}
