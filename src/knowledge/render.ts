// What the model reads for knowledge evidence, in one place: the token budget counts exactly these
// texts, so `used_tokens` is what the model receives (headers and the envelope included).
import { escapeData } from '../text/data-block.ts';
import type { KnowledgeItem } from './types.ts';

const OPEN = '<data source="knowledge_search">\n';
const CLOSE = '\n</data>\n';
const SEPARATOR = '\n\n';
const CITE = 'Cite the source (the kb:// address) of each fact you use.';
const STALE =
  ' Sources marked (outdated) were superseded or expired: prefer current ones, and say so if you rely on one.';

/** The citation line above an item's content; `index` counts from 0, the model sees [1], [2], … */
export function itemHeader(item: KnowledgeItem, index: number): string {
  const parts = [`chunk ${item.chunk_id}`];
  if (item.document_version) parts.push(`version ${item.document_version}`);
  if (item.claim_id) parts.push(`claim ${item.claim_id}`);
  const mark =
    item.freshness === 'stale'
      ? ' (outdated)'
      : item.freshness === 'unknown'
        ? ' (date unknown)'
        : '';
  return escapeData(`[${index + 1}] ${item.source_uri}${mark} — ${parts.join(', ')}`);
}

export function renderItem(item: KnowledgeItem, index: number): string {
  return `${itemHeader(item, index)}\n${escapeData(item.content)}`;
}

/** The text around the items: the data block and the instruction after it. */
export function envelopeText(anyStale: boolean): string {
  return `${OPEN}${CLOSE}${CITE}${anyStale ? STALE : ''}${SEPARATOR}`;
}

/** The evidence block the model reads for a list of items. */
export function renderEvidence(items: readonly KnowledgeItem[]): string {
  const blocks = items.map((item, i) => renderItem(item, i));
  const stale = items.some((i) => i.freshness === 'stale');
  return `${OPEN}${blocks.join(SEPARATOR)}${CLOSE}${CITE}${stale ? STALE : ''}`;
}
