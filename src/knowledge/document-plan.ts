// What one document becomes in the graph: chunks, naive claims with their evidence, entities.
// Ids are content hashes, so re-ingesting an unchanged file rewrites the same nodes and a changed
// passage gets a new id (its old chunk and evidence are deleted).
import { createHash } from 'node:crypto';
import { chunkSections } from '../attachments/index/chunk.ts';
import type { ExtractedSection } from '../attachments/types.ts';
import type { DocumentMeta } from './document-meta.ts';

export interface PlannedChunk {
  chunk_id: string;
  seq: number;
  text: string;
  heading: string | null;
  page: number | null;
}

export interface PlannedClaim {
  claim_id: string;
  statement: string;
  evidence_id: string;
  chunk_id: string;
}

export interface DocumentPlan {
  source_uri: string;
  title: string;
  updated_at: string;
  source_version: string | null;
  valid_from: string | null;
  valid_to: string | null;
  allowed_groups: string[];
  /** Groups and principal ids refused even when `allowed_groups` admits them. */
  acl_deny: string[];
  /** The first of `acl_partitions`, kept for the partition indexes and older readers. */
  acl_partition: string;
  /** Partitions the document is searched in: `partition` when given, else every group's. */
  acl_partitions: string[];
  supersedes: string[];
  chunks: PlannedChunk[];
  claims: PlannedClaim[];
  entities: string[];
}

const hash = (...parts: string[]) =>
  createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);

// A sentence is a claim when it carries a number or an obligation: "timeout is 3 s", "must use TLS".
const OBLIGATION =
  /\b(must|should|shall|required|never|always|mandatory)\b|해야|하여야|필수|금지|않아야|한다\./i;
const SENTENCE_END = /(?<=[.!?。])\s+|\n+/;

/** A chunk's sentences (and lines), without list markers or heading hashes. */
export function sentences(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((raw) =>
      raw
        .replace(/^\s*(#{1,6}|[-*+]|\d+[.)])\s+/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((s) => s !== '');
}

export function isClaim(sentence: string): boolean {
  if (sentence.length < 12 || sentence.length > 400) return false;
  return /\d/.test(sentence) || OBLIGATION.test(sentence);
}

export function claimSentences(text: string): string[] {
  return sentences(text).filter(isClaim);
}

export function claimIdOf(statement: string): string {
  return `claim-${hash(statement.normalize('NFKC').toLowerCase().replace(/\s+/g, ' '))}`;
}

/** Named things worth linking documents by: declared entities, `code spans`, ADR numbers. */
export function entitiesOf(text: string, declared: readonly string[] = []): string[] {
  const found = new Set(declared.map((e) => e.trim()).filter(Boolean));
  for (const m of text.matchAll(/`([^`\n]{3,60})`/g)) if (m[1]) found.add(m[1].trim());
  for (const m of text.matchAll(/\bADR-\d+\b/g)) found.add(m[0]);
  return [...found].sort();
}

export interface PlanInput {
  sourceUri: string;
  meta: DocumentMeta;
  sections: readonly ExtractedSection[];
  fallbackTitle: string;
  /** File modification time, when the metadata gives no `updated_at`. */
  modifiedAt: string;
  /** Resolved `supersedes` URIs. */
  supersedes: string[];
}

export function planDocument(input: PlanInput): DocumentPlan {
  const { meta, sourceUri } = input;
  const pieces = chunkSections(input.sections, { targetChars: 800, overlapChars: 80 });
  const occurrences = new Map<string, number>();
  const chunks: PlannedChunk[] = [];
  for (const piece of pieces) {
    const text = piece.text.trim();
    if (text === '') continue;
    const n = occurrences.get(text) ?? 0;
    occurrences.set(text, n + 1);
    chunks.push({
      chunk_id: `chunk-${hash(sourceUri, text, String(n))}`,
      seq: chunks.length,
      text,
      heading: piece.heading ?? null,
      page: piece.page ?? null,
    });
  }
  const claims: PlannedClaim[] = [];
  const seen = new Set<string>();
  for (const chunk of chunks) {
    for (const statement of claimSentences(chunk.text)) {
      const claim_id = claimIdOf(statement);
      const evidence_id = `ev-${hash(chunk.chunk_id, claim_id)}`;
      if (seen.has(evidence_id)) continue;
      seen.add(evidence_id);
      claims.push({ claim_id, statement, evidence_id, chunk_id: chunk.chunk_id });
    }
  }
  const allText = input.sections.map((s) => s.text).join('\n');
  return {
    source_uri: sourceUri,
    title: meta.title ?? input.fallbackTitle,
    updated_at: meta.updated_at ?? input.modifiedAt,
    source_version: meta.version ?? null,
    valid_from: meta.valid_from ?? null,
    valid_to: meta.valid_to ?? null,
    allowed_groups: [...new Set(meta.groups)],
    acl_deny: [...new Set(meta.deny ?? [])],
    acl_partition: meta.partition ?? (meta.groups[0] as string),
    acl_partitions: meta.partition ? [meta.partition] : [...new Set(meta.groups)],
    supersedes: input.supersedes,
    chunks,
    claims,
    entities: entitiesOf(allText, meta.entities),
  };
}
