// Fits items into max_tokens in the order the seed asks for: merge duplicate chunks, drop weaker
// evidence for the same claim, and only then cut, trimming the last item's text rather than its
// citation. used_tokens is the estimate of exactly what is returned, metadata included.
import { estimateTextTokens } from '../llm/token-estimate.ts';
import { byFreshnessThenScore } from './freshness.ts';
import type { DeniedEntry, DeniedReason, KnowledgeItem } from './types.ts';

/** Below this many tokens of room, a trimmed passage says too little to be worth citing. */
const MIN_TRIMMED_CONTENT = 16;
const ELLIPSIS = '…';

export interface BudgetOutcome {
  items: KnowledgeItem[];
  usedTokens: number;
  denied: DeniedEntry[];
}

/** The citation line an item costs besides its content (what the tool prints around it). */
export function metadataText(item: KnowledgeItem): string {
  return [
    item.claim_id ?? '',
    item.source_uri,
    item.chunk_id,
    item.document_version ?? '',
    item.freshness,
    item.provenance_path.join(' > '),
  ].join(' | ');
}

export function itemTokens(item: KnowledgeItem): number {
  return estimateTextTokens(item.content) + estimateTextTokens(metadataText(item));
}

function normalised(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The longest prefix of `text` (at a word break when one is near) costing at most `tokens`. */
export function trimToTokens(text: string, tokens: number): string {
  if (estimateTextTokens(text) <= tokens) return text;
  const points = Array.from(text);
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const cost = estimateTextTokens(points.slice(0, mid).join('') + ELLIPSIS);
    if (cost <= tokens) lo = mid;
    else hi = mid - 1;
  }
  let cut = points.slice(0, lo).join('');
  const space = cut.search(/\s\S*$/);
  if (space > cut.length * 0.8) cut = cut.slice(0, space);
  return cut.length === 0 ? '' : `${cut.trimEnd()}${ELLIPSIS}`;
}

export function fitToBudget(
  candidates: readonly KnowledgeItem[],
  maxTokens: number,
): BudgetOutcome {
  const counts = new Map<DeniedReason, number>();
  const drop = (reason: DeniedReason) => counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const ranked = [...candidates].sort(byFreshnessThenScore);

  // 1. One passage per chunk and per text; a claim already quoted by a kept passage adds nothing.
  const seenChunks = new Set<string>();
  const seenTexts = new Set<string>();
  const passages = ranked.filter((i) => i.claim_id === null);
  const deduped: KnowledgeItem[] = [];
  for (const item of ranked) {
    const text = normalised(item.content);
    if (item.claim_id === null) {
      if (seenChunks.has(item.chunk_id) || seenTexts.has(text)) {
        drop('duplicate_chunk');
        continue;
      }
      seenChunks.add(item.chunk_id);
      seenTexts.add(text);
    } else if (
      passages.some((p) => p.chunk_id === item.chunk_id && normalised(p.content).includes(text))
    ) {
      drop('duplicate_chunk');
      continue;
    }
    deduped.push(item);
  }

  // 2. The strongest evidence for each claim (ranked order: current before stale, then score).
  const seenClaims = new Set<string>();
  const strongest = deduped.filter((item) => {
    if (item.claim_id === null) return true;
    if (seenClaims.has(item.claim_id)) {
      drop('weaker_evidence');
      return false;
    }
    seenClaims.add(item.claim_id);
    return true;
  });

  // 3. Cut in rank order; the first item that does not fit is trimmed if enough room is left.
  const kept: KnowledgeItem[] = [];
  let used = 0;
  for (const [i, item] of strongest.entries()) {
    const cost = itemTokens(item);
    if (used + cost <= maxTokens) {
      kept.push(item);
      used += cost;
      continue;
    }
    const room = maxTokens - used - estimateTextTokens(metadataText(item));
    if (room >= MIN_TRIMMED_CONTENT) {
      const trimmed = { ...item, content: trimToTokens(item.content, room) };
      if (trimmed.content !== '') {
        kept.push(trimmed);
        used += itemTokens(trimmed);
        counts.set('token_budget', (counts.get('token_budget') ?? 0) + strongest.length - i - 1);
        break;
      }
    }
    counts.set('token_budget', (counts.get('token_budget') ?? 0) + strongest.length - i);
    break;
  }
  const denied = [...counts].map(([reason, count]) => ({ reason, count }));
  return { items: kept, usedTokens: used, denied };
}
