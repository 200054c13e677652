// Composition root: builds every part from the config and wires them together. Adapters are
// created here (and only here) so the core never imports a platform library.
import { setTimeout as sleep } from 'node:timers/promises';
import { DiscordAdapter } from '../../adapters/discord/discord-adapter.ts';
import { SlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import { WebAdapter } from '../../adapters/web/web-adapter.ts';
import { ToolRegistry } from '../agent/tool-registry.ts';
import { applyLangChainEnvironment } from '../config/runtime-env.ts';
import type { Config } from '../config/schema.ts';
import { ChannelSettingsService } from '../core/channel-settings.ts';
import { Conversation } from '../core/conversation.ts';
import { FeedbackService } from '../core/feedback.ts';
import { ProjectEraser } from '../core/project-eraser.ts';
import { lockLostError, SessionState } from '../core/session-state.ts';
import { ThreadContext } from '../core/thread-context.ts';
import { TurnRunner } from '../core/turn-runner.ts';
import { type StartupChecks, startStartupChecks } from '../doctor/startup.ts';
import { HttpServer, type RouteHandler } from '../http/server.ts';
import type { PlatformGroups } from '../knowledge/platform-groups.ts';
import { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Logger } from '../log/logger.ts';
import { createMetrics, type Metrics } from '../log/metrics.ts';
import { ContextManager } from '../memory/context-manager.ts';
import { chainPromptCounter } from '../memory/prompt-counter.ts';
import { GatewayLease } from '../queue/gateway-lease.ts';
import { RedisRateLimits } from '../queue/shared-rate-limits.ts';
import { queueRedis, TurnQueue, TurnWorker } from '../queue/turn-queue.ts';
import { StoreRecords } from '../store/plain-records.ts';
import { StoreSealedRecords } from '../store/sealed-records.ts';
import { SessionHistory } from '../store/session-history.ts';
import { SessionLock } from '../store/session-lock.ts';
import type { Store } from '../store/store.ts';
import { SecretBox } from '../util/secret-box.ts';
import { createAttachments } from './create-attachments.ts';
import { createKnowledge } from './create-knowledge.ts';
import { createStore } from './create-store.ts';
import { createTextModel } from './create-text-model.ts';

export interface AppOptions {
  log: Logger;
  /** Extra tools (tests register probes here; features register theirs in `registerTools`). */
  tools?: ToolRegistry;
  host?: string;
  /**
   * The process cannot go on and should exit (after `stop`) so its supervisor starts it afresh: a
   * gateway that lost its lease (discord.js cannot log in again once destroyed).
   */
  onFatal?: (reason: string) => void;
}

export interface RunningApp {
  port: number;
  store: Store;
  metrics: Metrics;
  runner: TurnRunner;
  core: Conversation;
  slack: SlackAdapter | undefined;
  discord: DiscordAdapter | undefined;
  /** The doctor's checks run at start-up (undefined when doctor.onStart is off). */
  startupChecks: StartupChecks | undefined;
  web: WebAdapter | undefined;
  /** Slack user group and Discord role memberships (with knowledge configured). */
  groups: PlatformGroups | undefined;
  /** The web chat's address, when it is served. */
  webUrl: string | undefined;
  /** Split roles: the shared turn queue, this worker, this gateway's lease. */
  queue?: TurnQueue | undefined;
  worker?: TurnWorker | undefined;
  gatewayLease?: GatewayLease | undefined;
  stop(): Promise<void>;
}

/**
 * Where the HTTP server listens: the web chat's host when it is the only platform (a local trial
 * opens nothing beyond loopback), otherwise every interface (Slack's events, health probes); the web
 * chat then refuses requests that did not arrive on loopback unless it is exposed.
 */
function serverHost(config: Config): string {
  const webOnly = !config.slackTransport && !config.discordApplicationId;
  return config.webChat && webOnly ? config.webChat.host : '0.0.0.0';
}

function webUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}/`;
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
  const feedback = new FeedbackService({ store, metrics, log, ...config.feedback });
  const eraser = new ProjectEraser({ store, log });
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
      feedback,
      erasures: eraser,
    },
  );

  // Split roles (ARCHITECTURE.md, "Scaling out"): everything shared goes through Redis.
  const role = config.scale.role;
  const redis = role === 'all' ? undefined : queueRedis(config.storeUrl);
  const queue = redis ? new TurnQueue(redis, config.scale.queue) : undefined;
  // An erased project's queued and failed messages go too: a failed job keeps its text a week.
  if (queue) eraser.alsoErase((pk) => queue.eraseProject(pk));
  const enqueues = role === 'ingress' || role === 'gateway';
  const worker =
    redis && role === 'worker'
      ? new TurnWorker(redis, config.scale.queue, { metrics, log })
      : undefined;
  const core = new Conversation({
    botName: config.agent.name,
    runner,
    state,
    metrics,
    log,
    ingestor: attachments.ingestor,
    index: attachments.index,
    settings: new ChannelSettingsService({
      store,
      defaults: config.channels.defaults,
      overrides: config.channels.overrides,
      models: () => llm.models(),
    }),
    threadContext: config.threadContext.enabled
      ? new ThreadContext({
          store,
          ingestor: attachments.ingestor,
          maxMessages: config.threadContext.maxMessages,
          metrics,
          log,
        })
      : undefined,
    lockWaitMs: config.agent.turnTimeoutMs,
    evidenceAccess: knowledge?.evidenceAccess,
    handoff:
      queue && enqueues
        ? async (m, opened) => {
            await queue.enqueue(m, opened);
          }
        : undefined,
    wrapPort: worker?.wrap,
    seesEveryMessage: role === 'all',
    feedback,
    eraser,
    interactions: {
      store,
      signingKeys: config.secrets.encryptionKeys,
      ttlMs: config.interactions.confirmTtlSeconds * 1000,
    },
  });
  // Slack user groups and Discord roles feed knowledge access (ARCHITECTURE.md, "Knowledge").
  const adapterDeps = { config, core, log, groups: knowledge?.groups };
  const routes = new Map<string, RouteHandler>();
  let slack: SlackAdapter | undefined;
  if (config.slackTransport && role !== 'gateway') {
    const keys = config.secrets.encryptionKeys;
    slack = new SlackAdapter({
      ...adapterDeps,
      records: new StoreRecords(store),
      // Installations (tokens) are sealed at rest; config refuses OAuth mode without a key.
      ...(config.slackOAuth && keys
        ? { sealed: new StoreSealedRecords(store, new SecretBox(keys)), claims: store }
        : {}),
    });
    const events = slack.eventsRoute;
    if (events && role !== 'worker') routes.set('/slack/events', events);
    if (role !== 'worker') for (const [path, route] of slack.installRoutes) routes.set(path, route);
  }
  let discord: DiscordAdapter | undefined;
  if (config.discordApplicationId && role !== 'ingress') {
    discord = new DiscordAdapter({
      ...adapterDeps,
      rateLimits: redis
        ? new RedisRateLimits(redis, `threadmind:discord-rest:${config.discordApplicationId}`)
        : undefined,
    });
  }
  const gatewayLease =
    discord && role === 'gateway'
      ? new GatewayLease(
          store,
          { key: `gateway-lease:discord:${config.discordApplicationId}`, ...config.scale.gateway },
          log.child({ component: 'gateway' }),
        )
      : undefined;
  let draining = false;
  const runsTurns = role === 'all' || role === 'worker';
  let startupChecks: StartupChecks | undefined;
  const web = config.webChat ? new WebAdapter({ ...adapterDeps, store: store.kv }) : undefined;
  const vision = attachments.vision;
  const http = new HttpServer({
    diagnostics: () => startupChecks?.states() ?? [],
    port: config.server.port,
    host: opts.host ?? serverHost(config),
    metrics,
    log,
    routes,
    ...(web ? { fallback: web.handle } : {}),
    checks: [
      { name: 'store', check: () => store.ping() },
      ...(runsTurns
        ? [
            { name: 'llm_text', check: () => llm.check() },
            // Without the vision model only image questions fail (with a clear tool result).
            ...(vision
              ? [{ name: 'llm_vision', check: () => vision.check(), optional: true }]
              : []),
            ...(knowledge ? [{ name: 'neo4j', check: knowledge.check }] : []),
          ]
        : []),
      ...(redis
        ? [
            {
              name: 'queue',
              check: async () => {
                // Unready first on SIGTERM, so the load balancer stops sending before we stop.
                if (draining) throw new Error('shutting down');
                await redis.ping();
              },
            },
          ]
        : []),
    ],
  });

  try {
    await slack?.start({ listen: role !== 'worker' });
    if (role === 'all') await discord?.start();
    else if (role === 'worker') await discord?.startRest();
  } catch (err) {
    await slack?.stop().catch(() => undefined);
    await discord?.stop().catch(() => undefined);
    await queue?.close().catch(() => undefined);
    redis?.disconnect();
    await store.close();
    await knowledge?.close();
    await text.embedded?.close();
    throw err;
  }
  const port = await http.listen();
  worker?.start(core);
  if (gatewayLease && discord) {
    const gateway = discord;
    gatewayLease.start({
      acquired: async () => {
        await gateway.start();
        metrics.gatewayActive.set(1);
      },
      lost: async () => {
        metrics.gatewayActive.set(0);
        await gateway.stop();
        opts.onFatal?.('the Discord gateway lease was lost to another process');
      },
    });
  }
  const refresh = queue
    ? setInterval(() => {
        queue.refreshMetrics(metrics).catch((err: unknown) => log.warn({ err }, 'queue metrics'));
      }, 5000)
    : undefined;
  refresh?.unref();
  // In the background: start-up never waits on them; each logs one line when it is done.
  startupChecks = startStartupChecks(config, { log, store });

  return {
    port,
    store,
    metrics,
    runner,
    core,
    slack,
    discord,
    startupChecks,
    web,
    groups: knowledge?.groups,
    webUrl: config.webChat ? webUrl(opts.host ?? config.webChat.host, port) : undefined,
    queue,
    worker,
    gatewayLease,
    async stop() {
      draining = true;
      clearInterval(refresh);
      await startupChecks?.stop();
      await slack?.stop();
      // 503 to the load balancer (readiness) and to Slack (which retries elsewhere) for a while
      // before the port closes.
      if (role === 'ingress') await sleep(config.scale.ingressDrainMs);
      await gatewayLease?.stop();
      if (worker && !(await worker.drain(config.server.shutdownGraceMs)))
        log.warn('handing queued messages still running back to the queue');
      const drained = await runner.drain(config.server.shutdownGraceMs);
      if (!drained) log.warn('shutting down with turns still running');
      // Turns in flight post over REST; the gateway can go once they are done.
      await discord?.stop();
      await queue?.close();
      redis?.disconnect();
      await web?.stop();
      await http.close();
      await knowledge?.close();
      await store.close();
      await text.embedded?.close();
    },
  };
}
