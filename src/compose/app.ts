// Composition root: builds every part from the config and wires them together. Adapters are
// created here (and only here) so the core never imports a platform library.
import { DiscordAdapter } from '../../adapters/discord/discord-adapter.ts';
import { SlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import { ToolRegistry } from '../agent/tool-registry.ts';
import { applyLangChainEnvironment } from '../config/runtime-env.ts';
import type { Config } from '../config/schema.ts';
import { Conversation } from '../core/conversation.ts';
import { lockLostError, SessionState } from '../core/session-state.ts';
import { TurnRunner } from '../core/turn-runner.ts';
import { HttpServer, type RouteHandler } from '../http/server.ts';
import { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Logger } from '../log/logger.ts';
import { createMetrics, type Metrics } from '../log/metrics.ts';
import { ContextManager } from '../memory/context-manager.ts';
import { chainPromptCounter } from '../memory/prompt-counter.ts';
import { SessionHistory } from '../store/session-history.ts';
import { SessionLock } from '../store/session-lock.ts';
import type { Store } from '../store/store.ts';
import { createAttachments } from './create-attachments.ts';
import { createKnowledge } from './create-knowledge.ts';
import { createStore } from './create-store.ts';
import { createTextModel } from './create-text-model.ts';

export interface AppOptions {
  log: Logger;
  /** Extra tools (tests register probes here; features register theirs in `registerTools`). */
  tools?: ToolRegistry;
  host?: string;
}

export interface RunningApp {
  port: number;
  store: Store;
  metrics: Metrics;
  runner: TurnRunner;
  core: Conversation;
  slack: SlackAdapter | undefined;
  discord: DiscordAdapter | undefined;
  stop(): Promise<void>;
}

export async function startApp(config: Config, opts: AppOptions): Promise<RunningApp> {
  const { log } = opts;
  applyLangChainEnvironment();
  const text = await createTextModel(config, log);
  let store: Store;
  try {
    store = await createStore(config.storeUrl);
  } catch (err) {
    await text.embedded?.close();
    throw err;
  }
  const metrics = createMetrics();
  const history = new SessionHistory(store, config.store.historyMaxMessages, { log });
  const llm = new ModelEndpoint({
    baseUrl: text.baseUrl,
    model: config.llm.text.model,
    apiKey: config.secrets.llmApiKey,
    temperature: config.llm.text.temperature,
    maxReplyTokens: config.llm.text.maxReplyTokens,
    requestTimeoutMs: config.llm.requestTimeoutMs,
    maxRetries: config.llm.maxRetries,
    log,
  });
  // The embedded model is text-only: without a configured vision endpoint, analyze_image says so.
  const withVision = !text.embedded || config.visionConfigured;
  const attachments = createAttachments(config, store, log, metrics, withVision);
  const tools = opts.tools ?? new ToolRegistry();
  for (const t of attachments.tools) tools.register(t);
  const knowledge = createKnowledge(config, llm, log);
  if (!knowledge && config.neo4jWriter) {
    log.warn(
      'NEO4J_URI is set with only the writer account; the bot needs NEO4J_USER/NEO4J_PASSWORD (a reader) to use the knowledge graph',
    );
  }
  if (knowledge) tools.register(knowledge.tool);
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
    ingestor: attachments.ingestor,
    dedupeTtlMs: config.store.dedupeTtlSeconds * 1000,
  });
  const runner = new TurnRunner(
    {
      botName: config.agent.name,
      maxConcurrentTurns: config.core.maxConcurrentTurns,
      maxQueuedPerSession: config.core.maxQueuedPerSession,
      maxToolRounds: config.agent.maxToolRounds,
      maxReplyTokens: config.llm.text.maxReplyTokens,
      summaryMaxTokens: config.memory.summaryMaxTokens,
      turnTimeoutMs: config.agent.turnTimeoutMs,
      firstTokenTimeoutMs: config.llm.firstTokenTimeoutMs,
      historyTurnsInPrompt: config.agent.historyTurnsInPrompt,
    },
    {
      llm,
      tools,
      history,
      state,
      memory,
      metrics,
      log,
      context: attachments.context,
    },
  );

  const core = new Conversation({
    botName: config.agent.name,
    runner,
    state,
    metrics,
    log,
    ingestor: attachments.ingestor,
    index: attachments.index,
  });
  const adapterDeps = { config, core, log };
  const routes = new Map<string, RouteHandler>();
  let slack: SlackAdapter | undefined;
  if (config.slackTransport) {
    slack = new SlackAdapter(adapterDeps);
    const events = slack.eventsRoute;
    if (events) routes.set('/slack/events', events);
  }
  let discord: DiscordAdapter | undefined;
  if (config.discordApplicationId) {
    discord = new DiscordAdapter(adapterDeps);
  }
  const vision = attachments.vision;
  const http = new HttpServer({
    port: config.server.port,
    ...(opts.host ? { host: opts.host } : {}),
    metrics,
    log,
    routes,
    checks: [
      { name: 'store', check: () => store.ping() },
      { name: 'llm_text', check: () => llm.check() },
      // Without the vision model only image questions fail (with a clear tool result).
      ...(vision ? [{ name: 'llm_vision', check: () => vision.check(), optional: true }] : []),
      ...(knowledge ? [{ name: 'neo4j', check: knowledge.check }] : []),
    ],
  });

  try {
    await slack?.start();
    await discord?.start();
  } catch (err) {
    await slack?.stop().catch(() => undefined);
    await discord?.stop().catch(() => undefined);
    await store.close();
    await knowledge?.close();
    await text.embedded?.close();
    throw err;
  }
  const port = await http.listen();

  return {
    port,
    store,
    metrics,
    runner,
    core,
    slack,
    discord,
    async stop() {
      await slack?.stop();
      const drained = await runner.drain(config.server.shutdownGraceMs);
      if (!drained) log.warn('shutting down with turns still running');
      // Turns in flight post over REST; the gateway can go once they are done.
      await discord?.stop();
      await http.close();
      await knowledge?.close();
      await store.close();
      await text.embedded?.close();
    },
  };
}
