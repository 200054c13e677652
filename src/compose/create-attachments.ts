import { attachmentContext } from '../attachments/attachment-context.ts';
import { analyzeImageTool, searchAttachmentTool } from '../attachments/attachment-tools.ts';
import { AttachmentIndex } from '../attachments/index/index.ts';
import { Ingestor } from '../attachments/ingest.ts';
import type { Config } from '../config/schema.ts';
import type { Embedder } from '../llm/embeddings/embedder.ts';
import { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Reranker } from '../llm/rerank/reranker.ts';
import type { UsageSink } from '../llm/usage-meter.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { Owner } from '../model/thread-ref.ts';
import type { Store } from '../store/store.ts';

/** The files feature, built from the config: ingestion, the index, the vision model and the tools. */
export function createAttachments(
  config: Config,
  store: Store,
  log: Logger,
  metrics: Metrics,
  /** False when the text model is embedded and no vision endpoint was configured. */
  withVision = true,
  /** Search by meaning as well as by words; undefined: no embeddings endpoint, words only. */
  embedder?: Embedder,
  /** Rescores the first stage's candidates and decides "not in the files"; undefined: none. */
  reranker?: Reranker,
  /** Where the vision model's calls book their tokens (ARCHITECTURE.md, "Sharing the GPU"). */
  usage?: UsageSink,
) {
  const index = new AttachmentIndex(store, {
    cacheBytes: config.attachments.search.indexCacheBytes,
    maxChars: config.attachments.search.maxChars,
    minCosine: config.attachments.search.minCosine,
    queryTimeoutMs: config.attachments.search.queryTimeoutMs,
    sentenceVectors: config.attachments.search.sentenceVectors,
    rerankCandidates: config.llm.rerank.candidates,
    minRerankScore: config.llm.rerank.minScore,
    embedder,
    reranker,
    log,
  });
  const ingestor = new Ingestor({
    index,
    store,
    log,
    maxFileBytes: config.attachments.maxFileBytes,
    extract: config.attachments.extract,
    images: config.attachments.images,
    onOutcome: (kind, outcome) => metrics.attachments.inc({ kind, outcome }),
  });
  const vision = withVision
    ? new ModelEndpoint({
        baseUrl: config.llm.vision.baseUrl,
        model: config.llm.vision.model,
        apiKey: config.secrets.llmApiKey,
        temperature: 0,
        maxReplyTokens: config.llm.vision.maxReplyTokens,
        requestTimeoutMs: config.llm.vision.timeoutMs,
        maxRetries: 0,
        streaming: false,
        usage,
        log,
      })
    : undefined;
  const deps = {
    index,
    ingestor,
    vision,
    maxHits: config.attachments.search.maxHits,
    waitForIngestMs: config.attachments.waitForIngestMs,
    visionTimeoutMs: config.llm.vision.timeoutMs,
    log,
  };
  return {
    index,
    ingestor,
    vision,
    embedder,
    tools: [searchAttachmentTool(deps), analyzeImageTool(deps)],
    context: (owners: readonly Owner[]) => attachmentContext(index, owners),
  };
}
