// The piece of a passage a search hit shows: the ~240 characters that cover the most (and the
// rarest) query terms, cut at word boundaries where possible.
import { type Token, tokenizeWithOffsets } from './tokenize.ts';

export const SNIPPET_CHARS = 240;

interface Window {
  from: number;
  to: number;
  score: number;
}

/** The stretch of at most `width` characters whose distinct matched terms weigh the most. */
function bestWindow(hits: readonly Token[], weights: ReadonlyMap<string, number>, width: number) {
  let best: Window | undefined;
  for (let i = 0; i < hits.length; i++) {
    const first = hits[i] as Token;
    const seen = new Set<string>();
    let score = 0;
    let to = first.end;
    for (let j = i; j < hits.length; j++) {
      const h = hits[j] as Token;
      if (h.end - first.start > width) break;
      to = h.end;
      // Distinct terms count fully; repeats only break ties.
      score += seen.has(h.term) ? 0.01 : (weights.get(h.term) ?? 0);
      seen.add(h.term);
    }
    if (!best || score > best.score) best = { from: first.start, to, score };
  }
  return best;
}

function clip(text: string, from: number, to: number): string {
  // Step in to the nearest word boundary when one is close, so the snippet starts on a word.
  if (from > 0) {
    const space = text.slice(from, from + 20).search(/\s/);
    if (space >= 0) from += space + 1;
  }
  if (to < text.length) {
    const tail = text.slice(Math.max(from, to - 20), to);
    const space = tail.search(/\s\S*$/);
    if (space >= 0) to = Math.max(from, to - 20) + space;
  }
  const body = text.slice(from, to).replace(/\s+/g, ' ').trim();
  return `${from > 0 ? '…' : ''}${body}${to < text.length ? '…' : ''}`;
}

export function makeSnippet(
  chunkText: string,
  weights: ReadonlyMap<string, number>,
  width: number = SNIPPET_CHARS,
): string {
  // Token offsets are in the NFKC form; show that form when normalising changed the length.
  const norm = chunkText.normalize('NFKC');
  const text = norm.length === chunkText.length ? chunkText : norm;
  if (text.length <= width) return text.replace(/\s+/g, ' ').trim();
  const hits = tokenizeWithOffsets(text).filter((t) => weights.has(t.term));
  const best = bestWindow(hits, weights, width);
  if (!best) return clip(text, 0, width);
  const centre = Math.round((best.from + best.to) / 2);
  const from = Math.max(0, Math.min(centre - width / 2, text.length - width));
  return clip(text, from, Math.min(text.length, from + width));
}
