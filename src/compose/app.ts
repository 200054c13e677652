// Composition root: builds every part from the config and wires them together, in named steps
// (create-*.ts). Adapters are created here (and only here) so the core never imports a platform
// library.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DiscordAdapter } from '../../adapters/discord/discord-adapter.ts';
import type { SlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import type { WebAdapter } from '../../adapters/web/web-adapter.ts';
import type { ToolRegistry } from '../agent/tool-registry.ts';
import { applyLangChainEnvironment } from '../config/runtime-env.ts';
import type { Config } from '../config/schema.ts';
import type { Conversation } from '../core/conversation.ts';
import type { ToolApprovals } from '../core/tool-approvals.ts';
import type { TurnRunner } from '../core/turn-runner.ts';
import type { UsageAccounting } from '../core/usage-accounting.ts';
import { type StartupChecks, startStartupChecks } from '../doctor/startup.ts';
import type { HttpServer } from '../http/server.ts';
import { PlatformGroups } from '../knowledge/platform-groups.ts';
import type { Embedder } from '../llm/embeddings/embedder.ts';
import type { TextEndpoint } from '../llm/text-endpoint.ts';
import type { Logger } from '../log/logger.ts';
import { createMetrics, type Metrics } from '../log/metrics.ts';
import type { GatewayLease } from '../queue/gateway-lease.ts';
import type { TurnQueue } from '../queue/turn-queue.ts';
import type { TurnWorker } from '../queue/turn-worker.ts';
import type { Store } from '../store/store.ts';
import { createConversation } from './create-conversation.ts';
import { createEmbedder, startEmbeddingModel } from './create-embedder.ts';
import { createHttp, type LiveState, webUrl } from './create-http.ts';
import {
  createPlatforms,
  type Platforms,
  startGatewayLease,
  startPlatforms,
} from './create-platforms.ts';
import { createReranker, startRankingModel } from './create-reranker.ts';
import { createRoles, type Roles } from './create-roles.ts';
import { createStore } from './create-store.ts';
import { createTextModel } from './create-text-model.ts';
import { createTurns, type Turns } from './create-turns.ts';
import { runningSummary } from './running-summary.ts';

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
  /** Where model usage is booked (tests wait for its writes: `usage.settled()`). */
  usage: UsageAccounting;
  /** Approvals of team-tool calls (their expiry sweep, for tests). */
  approvals: ToolApprovals;
  slack: SlackAdapter | undefined;
  discord: DiscordAdapter | undefined;
  /** The doctor's checks run at start-up (undefined when doctor.onStart is off). */
  startupChecks: StartupChecks | undefined;
  web: WebAdapter | undefined;
  /** Slack user group and Discord role memberships (with knowledge configured). */
  groups: PlatformGroups | undefined;
  /** The web chat's address, when it is served. */
  webUrl: string | undefined;
  /** Embeddings for retrieval; undefined: no endpoint, search by words only. */
  embedder: Embedder | undefined;
  /** The text model in use (a server, the embedded engine, or none with the reason). */
  textEndpoint: TextEndpoint;
  /** Split roles: the shared turn queue, this worker, this gateway's lease. */
  queue?: TurnQueue | undefined;
  worker?: TurnWorker | undefined;
  gatewayLease?: GatewayLease | undefined;
  stop(): Promise<void>;
}

/** Everything `stop` closes, in the order it closes them. */
interface Parts {
  config: Config;
  log: Logger;
  closeModels: () => Promise<void>;
  store: Store;
  turns: Turns;
  roles: Roles;
  platforms: Platforms;
  http: HttpServer;
  live: LiveState;
  refresh: NodeJS.Timeout | undefined;
  sweep: NodeJS.Timeout;
}

export async function startApp(config: Config, opts: AppOptions): Promise<RunningApp> {
  const { log } = opts;
  applyLangChainEnvironment();
  const { text, embedding, embedder, reranker, closeModels } = await startModels(config, log);
  let store: Store;
  try {
    store = await createStore(config.storeUrl);
  } catch (err) {
    await closeModels();
    throw err;
  }
  const metrics = createMetrics();
  const turns = createTurns(config, {
    store,
    text,
    embedder,
    reranker,
    metrics,
    log,
    tools: opts.tools,
  });
  await turns.mcp?.start();
  const roles = createRoles(config, turns.eraser, { store, metrics, log });
  // Platform groups feed knowledge access and `mcp.approvers`: kept when either needs them.
  const groups =
    turns.knowledge?.groups ?? (config.mcp.approvers.length > 0 ? new PlatformGroups() : undefined);
  const core = createConversation(config, { store, metrics, log, turns, roles, groups });
  const platforms = createPlatforms(config, { core, store, log, groups, roles });
  const live: LiveState = { draining: false, startupChecks: undefined };
  const http = createHttp(config, {
    host: opts.host,
    store,
    metrics,
    log,
    turns,
    roles,
    platforms,
    live,
  });
  try {
    await startPlatforms(platforms, roles);
  } catch (err) {
    await closeAfterFailedStart({ closeModels, store, turns, roles, platforms });
    throw err;
  }
  const port = await http.listen();
  roles.worker?.start(core);
  startGatewayLease(platforms, metrics, opts.onFatal);
  const { queue } = roles;
  const { refresh, sweep } = startTimers(queue, turns, metrics, log);
  const webAt = config.webChat ? webUrl(opts.host ?? config.webChat.host, port) : undefined;
  const summary = runningSummary(config, {
    port,
    webUrl: webAt,
    textEndpoint: text.endpoint,
    embeddedEmbeddings: embedding ? { model: embedding.engine.id } : undefined,
  });
  log.info({ running: summary.fields }, summary.msg);
  // In the background: start-up never waits on them; each logs one line when it is done.
  live.startupChecks = startStartupChecks(config, { log, store, textEndpoint: text.endpoint });
  const parts: Parts = {
    config,
    log,
    closeModels,
    store,
    turns,
    roles,
    platforms,
    http,
    live,
    refresh,
    sweep,
  };
  return {
    port,
    store,
    metrics,
    runner: turns.runner,
    core,
    approvals: turns.approvals,
    usage: turns.usage,
    slack: platforms.slack,
    discord: platforms.discord,
    startupChecks: live.startupChecks,
    web: platforms.web,
    groups,
    embedder,
    textEndpoint: text.endpoint,
    webUrl: webAt,
    queue,
    worker: roles.worker,
    gatewayLease: platforms.gatewayLease,
    stop: () => stopApp(parts),
  };
}

/** The periodic work of a running app: queue metrics, and approvals past their expiry. */
function startTimers(
  queue: RunningApp['queue'],
  turns: ReturnType<typeof createTurns>,
  metrics: ReturnType<typeof createMetrics>,
  log: Logger,
) {
  const refresh = queue
    ? setInterval(() => {
        queue.refreshMetrics(metrics).catch((err: unknown) => log.warn({ err }, 'queue metrics'));
      }, 5000)
    : undefined;
  refresh?.unref();
  // Approvals past their expiry are told in their thread (any replica; each once).
  const sweep = setInterval(() => {
    turns.approvals.sweep().catch((err: unknown) => log.warn({ err }, 'approval expiry sweep'));
  }, 10_000);
  sweep.unref();
  return { refresh, sweep };
}

/** The text, embedding and ranking models (embedded engines started), and how to close them. */
async function startModels(config: Config, log: Logger) {
  const text = await createTextModel(config, log);
  const embedding = await startEmbeddingModel(config, log, { textEmbedded: !!text.embedded });
  const embedder = createEmbedder(config, log, { embedded: embedding });
  const ranking = await startRankingModel(config, log, { textEmbedded: !!text.embedded });
  const reranker = createReranker(config, log, { embedded: ranking });
  const closeModels = async () => {
    await ranking?.close();
    await embedding?.close();
    await text.embedded?.close();
  };
  return { text, embedding, embedder, reranker, closeModels };
}

/** A platform failed to connect: what was opened so far is closed again. */
async function closeAfterFailedStart(
  p: Pick<Parts, 'closeModels' | 'store' | 'turns' | 'roles' | 'platforms'>,
): Promise<void> {
  await p.platforms.slack?.stop().catch(() => undefined);
  await p.platforms.discord?.stop().catch(() => undefined);
  await p.roles.queue?.close().catch(() => undefined);
  p.roles.redis?.disconnect();
  await p.store.close();
  await p.turns.knowledge?.close();
  await p.turns.usage.close().catch(() => undefined);
  await p.turns.fairCounters?.close();
  await p.closeModels();
}

async function stopApp(p: Parts): Promise<void> {
  const { config, log, roles, platforms } = p;
  p.live.draining = true;
  clearInterval(p.refresh);
  clearInterval(p.sweep);
  await p.live.startupChecks?.stop();
  await platforms.slack?.stop();
  // 503 to the load balancer (readiness) and to Slack (which retries elsewhere) for a while
  // before the port closes.
  if (roles.role === 'ingress') await sleep(config.scale.ingressDrainMs);
  // The active gateway leaves its session resumable before the lease goes: nothing is missed.
  if (platforms.gatewayLease?.active) await platforms.discord?.handOver();
  await platforms.gatewayLease?.stop();
  if (roles.worker && !(await roles.worker.drain(config.server.shutdownGraceMs)))
    log.warn('handing queued messages still running back to the queue');
  const drained = await p.turns.runner.drain(config.server.shutdownGraceMs);
  if (!drained) log.warn('shutting down with turns still running');
  // Turns in flight post over REST; the gateway can go once they are done.
  await platforms.discord?.stop();
  await roles.queue?.close();
  roles.redis?.disconnect();
  await platforms.web?.stop();
  await p.http.close();
  await p.turns.knowledge?.close();
  await p.turns.usage.close().catch(() => undefined);
  await p.turns.fairCounters?.close();
  await p.turns.mcp?.close();
  await p.store.close();
  await p.closeModels();
}
