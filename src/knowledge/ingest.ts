// `kg-ingest <dir>`: Markdown (front matter), PDF and DOCX (`<file>.meta.yaml` sidecar) into the
// graph with the writer account. Idempotent: a second run over the same files changes nothing; a
// changed file replaces its chunks; `prune` removes documents whose files are gone. An optional
// `principals.yaml` at the root ({principal_id: [groups]}) sets group memberships. With an
// embedder, chunks without a vector of its model are embedded (`ingest-vectors.ts`).
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Driver } from 'neo4j-driver';
import { extractDocument } from '../attachments/extract/index.ts';
import { AttachmentError, type ExtractLimits } from '../attachments/types.ts';
import type { Embedder } from '../llm/embeddings/embedder.ts';
import { MetaError, type MetaWarning, parseMeta, splitFrontMatter } from './document-meta.ts';
import { type DocumentPlan, planDocument } from './document-plan.ts';
import { changedPrincipals, diffDocument, missingDocuments } from './ingest-check.ts';
import { type EmbedReport, embedDocuments } from './ingest-vectors.ts';
import { sweep, writeDocument } from './ingest-write.ts';
import { isLegacyPrincipalId, LEGACY_PRINCIPAL_WARNING } from './principal-id.ts';
import { parsePrincipals, syncPrincipals } from './principals.ts';
import { ensureSchema } from './schema-bootstrap.ts';

export interface IngestOptions {
  /** A driver logged in as the writer account. */
  driver: Driver;
  root: string;
  database?: string;
  /** Prefix of the URIs derived from paths under `root`. */
  uriPrefix?: string;
  /** Delete documents under `uriPrefix` whose files were not seen in this run. */
  prune?: boolean;
  /** Expected size of the embedder's vectors; 0 or absent: the model's own. */
  embeddingDimensions?: number;
  /** Embeds chunks for `vector`/`hybrid` search; without it chunks get no vectors. */
  embedder?: Embedder;
  extractLimits?: ExtractLimits;
  clock?: () => number;
  onFile?: (file: string, outcome: string) => void;
  /** Metadata ignored in `file` at `line` (unknown keys, deprecated principal ids). */
  onWarning?: (file: string, line: number, message: string) => void;
  /** A dry run: read the graph, report what would change in `changes`, write nothing. */
  check?: boolean;
}

/** What a `check` run found (ARCHITECTURE.md, "Knowledge (Neo4j)": `kg:ingest --check`). */
export interface IngestChanges {
  added: string[];
  updated: Array<{ source_uri: string; fields: string[] }>;
  unchanged: number;
  /** Documents whose files are gone: removed with `prune`, else only listed here. */
  removed: string[];
  /** Principals of `principals.yaml` whose memberships would change. */
  principals: string[];
}

export interface IngestReport {
  documents: number;
  chunks: number;
  claims: number;
  removedChunks: number;
  skipped: Array<{ file: string; reason: string }>;
  /** Metadata that was ignored (unknown keys), with the file and line. */
  warnings: Array<{ file: string; line: number; message: string }>;
  principals: number;
  orphanClaims: number;
  prunedDocuments: number;
  /** Chunk vectors, when an embedder was given (absent in a `check` run). */
  vectors?: EmbedReport;
  /** Set by a `check` run, which wrote nothing. */
  changes?: IngestChanges;
}

type Resolved = IngestOptions & {
  database: string;
  uriPrefix: string;
  extractLimits: ExtractLimits;
};

export const INGEST_DEFAULTS = {
  database: 'neo4j',
  uriPrefix: 'kb://',
  extractLimits: {
    timeoutMs: 30_000,
    maxMemoryMb: 256,
    maxPages: 500,
    maxChars: 2_000_000,
    maxUnzippedBytes: 104_857_600,
  },
} as const satisfies Partial<IngestOptions>;

const MARKDOWN = /\.(md|markdown)$/i;
const KIND_BY_EXT: Record<string, 'pdf' | 'docx'> = { '.pdf': 'pdf', '.docx': 'docx' };

async function walk(dir: string, out: string[]): Promise<string[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await walk(full, out);
    else if (
      entry.isFile() &&
      (MARKDOWN.test(entry.name) || KIND_BY_EXT[path.extname(entry.name).toLowerCase()])
    )
      out.push(full);
  }
  return out.sort();
}

function uriOf(root: string, file: string, prefix: string): string {
  return prefix + path.relative(root, file).split(path.sep).join('/');
}

async function planFile(
  file: string,
  o: Resolved,
  warnings: MetaWarning[],
): Promise<{ plan: DocumentPlan; metaFile: string }> {
  const bytes = await readFile(file);
  const kind = KIND_BY_EXT[path.extname(file).toLowerCase()];
  let meta: ReturnType<typeof parseMeta>;
  let body: Uint8Array;
  let metaFile = file;
  if (kind) {
    const sidecar = `${file}.meta.yaml`;
    const yaml = await readFile(sidecar, 'utf8').catch(() => {
      throw new MetaError(
        `${path.basename(file)}: no ${path.basename(sidecar)} (groups are required)`,
      );
    });
    meta = parseMeta(yaml, path.basename(sidecar), { firstLine: 1, out: warnings });
    metaFile = sidecar;
    body = bytes;
  } else {
    const { yaml, body: text } = splitFrontMatter(new TextDecoder().decode(bytes));
    if (yaml === undefined)
      throw new MetaError(`${path.basename(file)}: no front matter (groups are required)`);
    // The front matter starts on the line after the opening `---`.
    meta = parseMeta(yaml, path.basename(file), { firstLine: 2, out: warnings });
    body = new TextEncoder().encode(text);
  }
  const extracted = await extractDocument(
    body,
    kind ?? 'text',
    path.basename(file),
    o.extractLimits,
  );
  const sourceUri = meta.source_uri ?? uriOf(o.root, file, o.uriPrefix);
  const supersedes = (meta.supersedes ?? []).map((s) =>
    s.includes('://') ? s : uriOf(o.root, path.resolve(path.dirname(file), s), o.uriPrefix),
  );
  const plan = planDocument({
    sourceUri,
    meta,
    sections: extracted.sections,
    fallbackTitle: path.basename(file).replace(/\.[^.]+$/, ''),
    modifiedAt: (await stat(file)).mtime.toISOString(),
    supersedes,
  });
  return { plan, metaFile };
}

/** The embedder's id once it is final; undefined when it cannot be reached (vectors not checked). */
async function finalId(embedder: Embedder): Promise<string | undefined> {
  try {
    return (await embedder.ready?.()) ?? embedder.id;
  } catch {
    return undefined;
  }
}

function emptyReport(): IngestReport {
  return {
    documents: 0,
    chunks: 0,
    claims: 0,
    removedChunks: 0,
    skipped: [],
    warnings: [],
    principals: 0,
    orphanClaims: 0,
    prunedDocuments: 0,
  };
}

/** One run's state as its files are read. */
interface Walk {
  o: Resolved;
  root: string;
  report: IngestReport;
  changes: IngestChanges;
  /** Source URIs of the documents read (the rest are gone). */
  seen: string[];
  /** A check compares stored vectors with the embedder's final id (known once it has answered). */
  model: string | undefined;
  now: () => string;
}

function describeChange(change: Awaited<ReturnType<typeof diffDocument>>): string {
  if (change.kind === 'updated') return `would be updated (${change.fields.join(', ')})`;
  return change.kind === 'added' ? 'would be added' : 'unchanged';
}

/** Plans one file and writes it (or, in a check, records what would change); a bad one is skipped. */
async function ingestFile(file: string, w: Walk): Promise<void> {
  const { o, root, report, changes } = w;
  const rel = path.relative(root, file);
  try {
    const warnings: MetaWarning[] = [];
    const { plan, metaFile } = await planFile(file, { ...o, root }, warnings);
    for (const warning of warnings) {
      report.warnings.push({ file: path.relative(root, metaFile), ...warning });
      o.onWarning?.(path.relative(root, metaFile), warning.line, warning.message);
    }
    w.seen.push(plan.source_uri);
    report.documents++;
    report.chunks += plan.chunks.length;
    report.claims += plan.claims.length;
    if (o.check) {
      const change = await diffDocument(o.driver, o.database, plan, w.model);
      if (change.kind === 'added') changes.added.push(plan.source_uri);
      else if (change.kind === 'updated')
        changes.updated.push({ source_uri: plan.source_uri, fields: change.fields });
      else changes.unchanged++;
      o.onFile?.(rel, describeChange(change));
      return;
    }
    const written = await writeDocument(o.driver, o.database, plan, w.now());
    report.removedChunks += written.removedChunks;
    o.onFile?.(rel, `${plan.chunks.length} chunks, ${plan.claims.length} claims`);
  } catch (err) {
    if (!(err instanceof MetaError || err instanceof AttachmentError)) throw err;
    const reason = err instanceof AttachmentError ? err.userMessage : err.message;
    report.skipped.push({ file: rel, reason });
    o.onFile?.(rel, `skipped: ${reason}`);
  }
}

/** `principals.yaml` at the root: memberships synced (or, in a check, compared); legacy ids warned. */
async function ingestPrincipals(w: Walk): Promise<void> {
  const { o, report } = w;
  const principals = await readFile(path.join(w.root, 'principals.yaml'), 'utf8').catch(
    () => undefined,
  );
  if (principals === undefined) return;
  const lines = principals.split('\n');
  const parsed = parsePrincipals(principals);
  for (const id of Object.keys(parsed).filter(isLegacyPrincipalId)) {
    const line =
      1 +
      Math.max(
        0,
        lines.findIndex((l) => l.trimStart().startsWith(id)),
      );
    const message = `"${id}": ${LEGACY_PRINCIPAL_WARNING}`;
    report.warnings.push({ file: 'principals.yaml', line, message });
    o.onWarning?.('principals.yaml', line, message);
  }
  if (o.check) {
    w.changes.principals = await changedPrincipals(o.driver, o.database, parsed);
    report.principals = Object.keys(parsed).length;
  } else {
    report.principals = await syncPrincipals(o.driver, o.database, principals);
  }
}

/** After a writing run: orphans swept, gone documents pruned if asked, chunks embedded. */
async function finishWrites(w: Walk): Promise<void> {
  const { o, report } = w;
  const swept = await sweep(
    o.driver,
    o.database,
    o.prune ? { uriPrefix: o.uriPrefix, seen: w.seen } : undefined,
  );
  report.orphanClaims = swept.orphanClaims;
  report.prunedDocuments = swept.prunedDocuments;
  if (o.embedder) {
    report.vectors = await embedDocuments(
      {
        driver: o.driver,
        database: o.database,
        embedder: o.embedder,
        ...(o.embeddingDimensions ? { dimensions: o.embeddingDimensions } : {}),
      },
      w.seen,
    );
  }
}

export async function ingestDirectory(options: IngestOptions): Promise<IngestReport> {
  const o: Resolved = { ...INGEST_DEFAULTS, ...options };
  const root = path.resolve(o.root);
  if (!o.check) {
    await ensureSchema(o.driver, {
      database: o.database,
      ...(o.embeddingDimensions && !o.embedder
        ? { embeddingDimensions: o.embeddingDimensions }
        : {}),
    });
  }
  const w: Walk = {
    o,
    root,
    report: emptyReport(),
    changes: { added: [], updated: [], unchanged: 0, removed: [], principals: [] },
    seen: [],
    model: o.check && o.embedder ? await finalId(o.embedder) : undefined,
    now: () => new Date((o.clock ?? Date.now)()).toISOString(),
  };
  for (const file of await walk(root, [])) await ingestFile(file, w);
  await ingestPrincipals(w);
  if (o.check) {
    w.changes.removed = await missingDocuments(o.driver, o.database, o.uriPrefix, w.seen);
    if (o.prune) w.report.prunedDocuments = w.changes.removed.length;
    w.report.changes = w.changes;
    return w.report;
  }
  await finishWrites(w);
  return w.report;
}
