// The turn pipeline and what it runs on: the text model, the files and knowledge features and
// their tools, memory, session state, feedback and erasure.
import { McpHub } from '../agent/mcp/mcp-hub.ts';
import { ToolRegistry } from '../agent/tool-registry.ts';
import type { Ingestor } from '../attachments/ingest.ts';
import type { Config } from '../config/schema.ts';
import { BudgetGuard } from '../core/budgets.ts';
import { FeedbackService } from '../core/feedback.ts';
import { ProjectEraser } from '../core/project-eraser.ts';
import { lockLostError, SessionState } from '../core/session-state.ts';
import { ToolApprovals } from '../core/tool-approvals.ts';
import { TurnRunner, type TurnRunnerOptions } from '../core/turn-runner.ts';
import { UsageAccounting } from '../core/usage-accounting.ts';
import type { HttpEmbedder } from '../llm/embeddings/http-embedder.ts';
import { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Reranker } from '../llm/rerank/reranker.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import { ContextManager } from '../memory/context-manager.ts';
import { chainPromptCounter } from '../memory/prompt-counter.ts';
import { RedisFairCounters } from '../store/redis-fair-counters.ts';
import { SessionHistory } from '../store/session-history.ts';
import { SessionLock } from '../store/session-lock.ts';
import type { Store } from '../store/store.ts';
import type { UsageLedger } from '../store/usage-ledger.ts';
import { createAttachments } from './create-attachments.ts';
import { createKnowledge } from './create-knowledge.ts';
import { createUsageLedger } from './create-store.ts';
import type { TextModel } from './create-text-model.ts';
import { createWebTools } from './create-web-tools.ts';

export interface TurnsDeps {
  store: Store;
  text: TextModel;
  /** Embeddings for hybrid search; undefined: words only. */
  embedder: HttpEmbedder | undefined;
  /** The second stage of file search; undefined: the fused order. */
  reranker?: Reranker | undefined;
  metrics: Metrics;
  log: Logger;
  /** Where usage is booked; absent: beside the store. */
  usageLedger?: UsageLedger | undefined;
  /** Extra tools (tests register probes here). */
  tools?: ToolRegistry | undefined;
}

export type Turns = ReturnType<typeof createTurns>;

export function createTurns(config: Config, d: TurnsDeps) {
  const { store, text, metrics, log } = d;
  const history = new SessionHistory(store, config.store.historyMaxMessages, { log });
  const usage = new UsageAccounting({
    ledger: d.usageLedger ?? createUsageLedger(config.storeUrl),
    metrics,
    log,
  });
  const llm = new ModelEndpoint({
    baseUrl: text.baseUrl,
    model: config.llm.text.model,
    apiKey: config.secrets.llmApiKey,
    temperature: config.llm.text.temperature,
    maxReplyTokens: config.llm.text.maxReplyTokens,
    requestTimeoutMs: config.llm.requestTimeoutMs,
    maxRetries: config.llm.maxRetries,
    priority: config.sharing.priority,
    cacheSalt: config.sharing.cacheSalt,
    usage: usage.book,
    log,
  });
  // The embedded model is text-only: without a configured vision endpoint, analyze_image says so.
  const withVision = !text.embedded || config.visionConfigured;
  const attachments = createAttachments(
    config,
    store,
    log,
    metrics,
    withVision,
    d.embedder,
    d.reranker,
    usage.book,
  );
  const tools = d.tools ?? new ToolRegistry();
  for (const t of attachments.tools) tools.register(t);
  const knowledge = createKnowledge(config, llm, log, d.embedder, d.reranker);
  if (!knowledge && config.neo4jWriter) {
    log.warn(
      'NEO4J_URI is set with only the writer account; the bot needs NEO4J_USER/NEO4J_PASSWORD (a reader) to use the knowledge graph',
    );
  }
  if (knowledge) tools.register(knowledge.tool);
  for (const t of createWebTools(config, log)) tools.register(t);
  const { memory, state } = createMemory(
    config,
    { store, history, llm, metrics, log },
    attachments.ingestor,
  );
  // The team's MCP servers (connected by startApp) and the approvals their calls wait for.
  const mcp =
    config.mcpServers.length > 0
      ? new McpHub({ servers: config.mcpServers, limits: config.mcp, log })
      : undefined;
  const approvals = new ToolApprovals({
    store,
    ttlMs: config.mcp.approvalTtlSeconds * 1000,
    approvers: config.mcp.approvers,
    log,
  });
  const feedback = new FeedbackService({ store, metrics, log, ...config.feedback });
  const eraser = new ProjectEraser({ store, log });
  eraser.alsoErase(usage.eraseProject);
  const fairCounters = sharedFairCounters(config);
  const runner = new TurnRunner(runnerOptions(config), {
    llm,
    tools,
    mcp,
    history,
    state,
    memory,
    metrics,
    log,
    budgets: budgetGuard(config, usage, store),
    fairCounters,
    withdrawals: store,
    context: attachments.context,
    feedback,
    erasures: eraser,
  });
  return {
    ...{ llm, embedder: d.embedder, attachments, knowledge, state, feedback, eraser, runner },
    usage,
    fairCounters,
    mcp,
    approvals,
  };
}

/** The turn pipeline's settings. */
function runnerOptions(config: Config): TurnRunnerOptions {
  return {
    botName: config.agent.name,
    maxConcurrentTurns: config.core.maxConcurrentTurns,
    maxQueuedPerSession: config.core.maxQueuedPerSession,
    maxToolRounds: config.agent.maxToolRounds,
    maxReplyTokens: config.llm.text.maxReplyTokens,
    summaryMaxTokens: config.memory.summaryMaxTokens,
    turnTimeoutMs: config.agent.turnTimeoutMs,
    firstTokenTimeoutMs: config.llm.firstTokenTimeoutMs,
    historyTurnsInPrompt: config.agent.historyTurnsInPrompt,
    admission: config.sharing.fairness.admission,
    turnEstimateTokens: config.sharing.fairness.turnEstimateTokens,
    queueNoticeMs: config.sharing.fairness.showPlaceEveryMs,
    forgetIdleMs: config.sharing.fairness.forgetIdleMs,
  };
}

/** Fair admission's counters in Redis when workers share them (auto: in split roles). */
function sharedFairCounters(config: Config): RedisFairCounters | undefined {
  const f = config.sharing.fairness;
  const redis = /^rediss?:\/\//.test(config.storeUrl);
  const on =
    f.sharedCounters === 'on' || (f.sharedCounters === 'auto' && config.scale.role !== 'all');
  if (!redis || !on || f.admission !== 'fair') return undefined;
  return new RedisFairCounters(config.storeUrl, {
    prefix: `threadmind:${config.scale.queue.name}:fair`,
    forgetIdleMs: f.forgetIdleMs,
  });
}

/** What keeps a thread inside the window, and the session state (lock, claims) beside it. */
function createMemory(
  config: Config,
  d: { store: Store; history: SessionHistory; llm: ModelEndpoint; metrics: Metrics; log: Logger },
  ingestor: Ingestor,
) {
  const { store, history, llm, metrics, log } = d;
  const memory = new ContextManager({
    history,
    store,
    count: chainPromptCounter({
      endpoint: llm,
      apiKey: config.secrets.llmApiKey,
      timeoutMs: 3000,
    }),
    compressAtTokens: config.memory.compressAtTokens,
    keepRecentTurns: config.memory.keepRecentTurns,
    maxModelLenFallback: config.memory.maxModelLenFallback,
    maxReplyTokens: config.llm.text.maxReplyTokens,
    toolOutputMaxChars: config.memory.toolOutputMaxChars,
    postSummaries: config.memory.postSummaries,
    summaryTimeoutMs: config.memory.summaryTimeoutMs,
    onCompressed: (how) => metrics.compressions.inc({ how }),
  });
  const state = new SessionState({
    store,
    history,
    memory,
    lock: new SessionLock(store, {
      ttlMs: config.store.lockTtlSeconds * 1000,
      lostReason: lockLostError,
      onRenewError: (err) => log.warn({ err }, 'could not renew a session lock'),
    }),
    ingestor,
    dedupeTtlMs: config.store.dedupeTtlSeconds * 1000,
  });
  return { memory, state };
}

/** Budgets from config; the configured admins are exempt when `adminsExempt` says so. */
function budgetGuard(config: Config, usage: UsageAccounting, store: Store): BudgetGuard {
  const b = config.sharing.budgets;
  const admins = b.adminsExempt
    ? [
        ...config.slack.admins.map((u) => `slack:${u}`),
        ...config.discord.admins.map((u) => `discord:${u}`),
      ]
    : [];
  // Warnings are marked in the store: once per budget and period, whichever process answers.
  return new BudgetGuard({
    ...{ budgets: b, exempt: new Set([...b.exempt, ...admins]), usage },
    ...{ marks: store, platformAdminsExempt: b.adminsExempt },
  });
}
