// Fits items into max_tokens: merge duplicate chunks, drop weaker evidence for the same claim, and
// only then cut in order of relevance (freshness is marked, never a reason to drop), trimming the
// last item's text rather than its citation. used_tokens estimates exactly what the model reads:
// each item as rendered (its citation line included) and the envelope around them.
import { estimateTextTokens } from '../llm/token-estimate.ts';
import { byRelevance, preferCurrent } from './freshness.ts';
import { envelopeText, itemHeader, renderItem } from './render.ts';
import type { DeniedEntry, DeniedReason, KnowledgeItem } from './types.ts';

/** Below this many tokens of room, a trimmed passage says too little to be worth citing. */
const MIN_TRIMMED_CONTENT = 16;
const ELLIPSIS = '…';

export interface BudgetOutcome {
  items: KnowledgeItem[];
  usedTokens: number;
  denied: DeniedEntry[];
}

/** The citation line an item costs besides its content, at position `index` (from 0). */
export function metadataText(item: KnowledgeItem, index = 0): string {
  return itemHeader(item, index);
}

/** What item number `index` (from 0) costs as the model reads it, its separator included. */
export function itemTokens(item: KnowledgeItem, index = 0): number {
  return estimateTextTokens(renderItem(item, index)) + SEPARATOR_TOKENS;
}

const SEPARATOR_TOKENS = 1;

/** The data block and instruction around the items. */
export function envelopeTokens(anyStale: boolean): number {
  return estimateTextTokens(envelopeText(anyStale));
}

/** Tokens of the whole evidence block for `items` in this order. */
export function evidenceTokens(items: readonly KnowledgeItem[]): number {
  if (items.length === 0) return 0;
  const stale = items.some((i) => i.freshness === 'stale');
  return envelopeTokens(stale) + items.reduce((sum, item, i) => sum + itemTokens(item, i), 0);
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
  const ranked = [...candidates].sort(byRelevance);

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

  // 2. The strongest evidence for each claim: current before stale, then the more relevant.
  const seenClaims = new Set<string>();
  const best = new Map<string, KnowledgeItem>();
  for (const item of [...deduped].sort(preferCurrent)) {
    if (item.claim_id !== null && !best.has(item.claim_id)) best.set(item.claim_id, item);
  }
  const strongest = deduped.filter((item) => {
    if (item.claim_id !== null && best.get(item.claim_id) !== item) {
      drop('weaker_evidence');
      return false;
    }
    if (item.claim_id === null) return true;
    seenClaims.add(item.claim_id);
    return true;
  });

  // 3. Cut in rank order; the first item that does not fit is trimmed if enough room is left. The
  // envelope is reserved at its largest (with the outdated note) and reported as it is.
  const kept: KnowledgeItem[] = [];
  let used = envelopeTokens(true);
  for (const [i, item] of strongest.entries()) {
    const n = kept.length;
    const cost = itemTokens(item, n);
    if (used + cost <= maxTokens) {
      kept.push(item);
      used += cost;
      continue;
    }
    const room =
      maxTokens - used - estimateTextTokens(`${metadataText(item, n)}\n`) - SEPARATOR_TOKENS - 1;
    if (room >= MIN_TRIMMED_CONTENT) {
      const trimmed = { ...item, content: trimToTokens(item.content, room) };
      if (trimmed.content !== '' && used + itemTokens(trimmed, n) <= maxTokens) {
        kept.push(trimmed);
        used += itemTokens(trimmed, n);
        counts.set('token_budget', (counts.get('token_budget') ?? 0) + strongest.length - i - 1);
        break;
      }
    }
    counts.set('token_budget', (counts.get('token_budget') ?? 0) + strongest.length - i);
    break;
  }
  const denied = [...counts].map(([reason, count]) => ({ reason, count }));
  return { items: kept, usedTokens: evidenceTokens(kept), denied };
}
