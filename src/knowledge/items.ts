// From graph hits to contract items, and the final ACL check every item passes before output.
// A chunk that holds claims yields one item per claim (the sentence that states it, cited by its
// chunk) plus a passage of its other sentences when they say enough; a chunk without claims
// yields itself as a passage. Nothing is lost and no sentence is paid for twice.
import { type Access, canSee } from './acl.ts';
import { sentences } from './document-plan.ts';
import { freshnessOf } from './freshness.ts';
import type { ChunkHit } from './graph-queries.ts';
import type { Row } from './read-runner.ts';
import type { KnowledgeItem } from './types.ts';

/** Shorter leftovers (a heading, "Context:") are not worth an item of their own. */
const MIN_REMAINDER_CHARS = 40;

/** The chunk's sentences that are not among its claims, or '' when too little is left. */
export function remainderText(text: string, statements: ReadonlySet<string>): string {
  const rest = sentences(text).filter((s) => !statements.has(s));
  const joined = rest.join(' ');
  return joined.length >= MIN_REMAINDER_CHARS ? joined : '';
}

export interface HitOptions {
  /** Neighbour chunks are context: always a passage, even when they hold claims. */
  passageOnly?: boolean;
}

export function itemsFromHit(
  hit: ChunkHit,
  scores: Record<string, number>,
  at: number,
  opts: HitOptions = {},
): KnowledgeItem[] {
  const doc = hit.doc;
  const common = {
    source_uri: doc.source_uri,
    chunk_id: hit.chunk_id,
    document_version: doc.source_version ?? doc.updated_at ?? null,
    freshness: freshnessOf(doc, at),
    retrieval_scores: scores,
  };
  const tail = [`Chunk:${hit.chunk_id}`, `Document:${doc.source_uri}`];
  const claims = opts.passageOnly ? [] : hit.claims;
  const passage = (content: string): KnowledgeItem => ({
    ...common,
    claim_id: null,
    content,
    provenance_path: hit.from ? [hit.from, ...tail] : tail,
  });
  if (claims.length === 0) return [passage(hit.text)];
  const seen = new Set<string>();
  const items: KnowledgeItem[] = [];
  for (const c of claims) {
    if (seen.has(c.claim_id)) continue;
    seen.add(c.claim_id);
    const claimNode = `Claim:${c.claim_id}`;
    const head = hit.from && hit.from !== claimNode ? [hit.from] : [];
    items.push({
      ...common,
      claim_id: c.claim_id,
      content: c.statement,
      provenance_path: [...head, claimNode, `Evidence:${c.evidence_id}`, ...tail],
    });
  }
  // Claims reached through another claim are that claim's evidence, not a new passage.
  const rest = hit.from?.startsWith('Claim:')
    ? ''
    : remainderText(hit.text, new Set(claims.map((c) => c.statement)));
  if (rest !== '') items.push(passage(rest));
  return items;
}

/**
 * Keeps the items whose chunk, as read again from the graph, is still visible to the caller and
 * still belongs to the document the item cites. Anything unexpected fails closed.
 */
export function finalCheck(
  items: readonly KnowledgeItem[],
  facts: readonly Row[],
  access: Access,
): { passed: KnowledgeItem[]; failed: number } {
  const byChunk = new Map(facts.map((f) => [f.chunk_id, f]));
  const passed = items.filter((item) => {
    const f = byChunk.get(item.chunk_id);
    return (
      f !== undefined &&
      f.source_uri === item.source_uri &&
      item.provenance_path.length > 0 &&
      canSee(access, {
        chunkPartition: f.chunk_partition,
        documentPartition: f.document_partition,
        allowedGroups: f.allowed_groups,
        denied: f.denied,
      })
    );
  });
  return { passed, failed: items.length - passed.length };
}
