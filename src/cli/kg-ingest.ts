// `node src/cli/kg-ingest.ts <dir> [--prune] [--check] [--uri-prefix kb://]`: loads Markdown (front
// matter), PDF and DOCX (`<file>.meta.yaml`) into the knowledge graph with the writer account
// (NEO4J_URI, NEO4J_WRITER_USER, NEO4J_WRITER_PASSWORD). Safe to re-run. `--check` lists what
// would change and writes nothing. With an embeddings endpoint configured, chunks without a vector
// of its model are embedded (`--check` lists the documents that have such chunks).
import neo4j from 'neo4j-driver';
import { closeExtractWorkers } from '../attachments/extract/index.ts';
import { createEmbedder, startEmbeddingModel } from '../compose/create-embedder.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import type { Config } from '../config/schema.ts';
import { type IngestReport, ingestDirectory } from '../knowledge/ingest.ts';
import type { Embedder } from '../llm/embeddings/embedder.ts';
import { createLogger } from '../log/logger.ts';

/** The embedder chunks are embedded with (none: no vectors), and how to stop it. */
export type EmbedderFor = (
  config: Config,
) => Promise<{ embedder: Embedder | undefined; close(): Promise<void> }>;

/** The bot's own embeddings endpoint (LLM_EMBED_BASE_URL), the embedded model included. */
const configuredEmbedder: EmbedderFor = async (config) => {
  const log = createLogger('warn', process.stderr);
  const embedded = await startEmbeddingModel(config, log, { textEmbedded: false });
  return {
    embedder: createEmbedder(config, log, { embedded }),
    close: async () => {
      await embedded?.close();
    },
  };
};

const USAGE = 'usage: node src/cli/kg-ingest.ts <dir> [--prune] [--check] [--uri-prefix kb://]\n';

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

/** What the run did to chunk vectors; true when some chunks were left without one. */
function reportVectors(report: IngestReport, model: string | undefined): boolean {
  const v = report.vectors;
  if (!v) return false;
  const index = v.vectorIndex ? `, vector index ${v.vectorIndex}` : '';
  const size = v.dimensions ? ` (${v.dimensions} dimensions${index})` : '';
  process.stdout.write(`${v.embedded} chunks embedded with ${model}${size}\n`);
  if (v.pending === 0) return false;
  process.stderr.write(
    `${v.pending} chunks not embedded: ${v.failure ?? 'unknown reason'} (searched by words until the next run)\n`,
  );
  return true;
}

export async function main(
  args: string[],
  embedderFor: EmbedderFor = configuredEmbedder,
): Promise<number> {
  const prefix = option(args, '--uri-prefix');
  const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--uri-prefix');
  if (!dir || args.includes('--help')) {
    process.stderr.write(USAGE);
    return 2;
  }
  let conn: NonNullable<ReturnType<typeof loadConfig>['neo4jWriter']>;
  let config: Config;
  try {
    config = loadConfig();
    const writer = config.neo4jWriter;
    if (!writer) {
      process.stderr.write(
        'kg-ingest needs NEO4J_URI, NEO4J_WRITER_USER and NEO4J_WRITER_PASSWORD (ingest writes with its own account).\n',
      );
      return 1;
    }
    conn = writer;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(
      `kg-ingest cannot start:\n${err.problems.map((p) => `  - ${p}`).join('\n')}\n`,
    );
    return 1;
  }
  const embeddings = await embedderFor(config);
  const embedder = embeddings.embedder;
  const driver = neo4j.driver(conn.uri, neo4j.auth.basic(conn.user, conn.password));
  const dims = config.knowledge.embeddingDimensions;
  const started = Date.now();
  try {
    const report = await ingestDirectory({
      driver,
      root: dir,
      prune: args.includes('--prune'),
      check: args.includes('--check'),
      ...(conn.database ? { database: conn.database } : {}),
      ...(prefix ? { uriPrefix: prefix } : {}),
      ...(embedder ? { embedder } : {}),
      ...(dims > 0 ? { embeddingDimensions: dims } : {}),
      onFile: (file, outcome) => process.stdout.write(`${file}: ${outcome}\n`),
      onWarning: (file, line, message) =>
        process.stderr.write(`warning: ${file}:${line}: ${message}\n`),
    });
    const c = report.changes;
    if (c) {
      const removedVerb = args.includes('--prune')
        ? 'would be removed'
        : 'not in the directory (--prune removes)';
      for (const uri of c.removed) process.stdout.write(`${uri}: ${removedVerb}\n`);
      for (const id of c.principals)
        process.stdout.write(`principals.yaml: ${id}: memberships would change\n`);
      process.stdout.write(
        `check only, nothing written: ${c.added.length} added, ${c.updated.length} updated, ` +
          `${c.unchanged} unchanged, ${c.removed.length} ${args.includes('--prune') ? 'removed' : 'gone from the directory'}, ` +
          `${c.principals.length} principals changed, ${report.warnings.length} warnings\n`,
      );
    } else
      process.stdout.write(
        `${report.documents} documents, ${report.chunks} chunks, ${report.claims} claims ` +
          `(${report.removedChunks} old chunks removed, ${report.prunedDocuments} documents pruned, ` +
          `${report.principals} principals) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    const unembedded = reportVectors(report, embedder?.id);
    if (report.skipped.length > 0) {
      process.stderr.write(`${report.skipped.length} files skipped:\n`);
      for (const s of report.skipped) process.stderr.write(`  ${s.file}: ${s.reason}\n`);
    }
    return report.skipped.length > 0 || unembedded ? 3 : 0;
  } catch (err) {
    process.stderr.write(`kg-ingest failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await driver.close();
    await embeddings.close();
    await closeExtractWorkers();
  }
}

process.exitCode = await main(process.argv.slice(2));
