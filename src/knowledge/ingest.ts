// `kg-ingest <dir>`: Markdown (front matter), PDF and DOCX (`<file>.meta.yaml` sidecar) into the
// graph with the writer account. Idempotent: a second run over the same files changes nothing; a
// changed file replaces its chunks; `prune` removes documents whose files are gone. An optional
// `principals.yaml` at the root ({principal_id: [groups]}) sets group memberships.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Driver } from 'neo4j-driver';
import { extractDocument } from '../attachments/extract/index.ts';
import { AttachmentError, type ExtractLimits } from '../attachments/types.ts';
import { MetaError, type MetaWarning, parseMeta, splitFrontMatter } from './document-meta.ts';
import { type DocumentPlan, planDocument } from './document-plan.ts';
import { sweep, writeDocument } from './ingest-write.ts';
import { syncPrincipals } from './principals.ts';
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
  embeddingDimensions?: number;
  extractLimits?: ExtractLimits;
  clock?: () => number;
  onFile?: (file: string, outcome: string) => void;
  /** Metadata ignored in `file` at `line` (unknown keys). */
  onWarning?: (file: string, line: number, message: string) => void;
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

export async function ingestDirectory(options: IngestOptions): Promise<IngestReport> {
  const o: Resolved = { ...INGEST_DEFAULTS, ...options };
  const now = () => new Date((o.clock ?? Date.now)()).toISOString();
  const root = path.resolve(o.root);
  await ensureSchema(o.driver, {
    database: o.database,
    ...(o.embeddingDimensions ? { embeddingDimensions: o.embeddingDimensions } : {}),
  });
  const report: IngestReport = {
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
  const seen: string[] = [];
  for (const file of await walk(root, [])) {
    const rel = path.relative(root, file);
    try {
      const warnings: MetaWarning[] = [];
      const { plan, metaFile } = await planFile(file, { ...o, root }, warnings);
      for (const w of warnings) {
        report.warnings.push({ file: path.relative(root, metaFile), ...w });
        o.onWarning?.(path.relative(root, metaFile), w.line, w.message);
      }
      const written = await writeDocument(o.driver, o.database, plan, now());
      seen.push(plan.source_uri);
      report.documents++;
      report.chunks += plan.chunks.length;
      report.claims += plan.claims.length;
      report.removedChunks += written.removedChunks;
      o.onFile?.(rel, `${plan.chunks.length} chunks, ${plan.claims.length} claims`);
    } catch (err) {
      if (!(err instanceof MetaError || err instanceof AttachmentError)) throw err;
      const reason = err instanceof AttachmentError ? err.userMessage : err.message;
      report.skipped.push({ file: rel, reason });
      o.onFile?.(rel, `skipped: ${reason}`);
    }
  }
  const principalsFile = path.join(root, 'principals.yaml');
  const principals = await readFile(principalsFile, 'utf8').catch(() => undefined);
  if (principals !== undefined) {
    report.principals = await syncPrincipals(o.driver, o.database, principals);
  }
  const swept = await sweep(
    o.driver,
    o.database,
    o.prune ? { uriPrefix: o.uriPrefix, seen } : undefined,
  );
  report.orphanClaims = swept.orphanClaims;
  report.prunedDocuments = swept.prunedDocuments;
  return report;
}
