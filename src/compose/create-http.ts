// The HTTP server: the platforms' raw routes, the web chat's app for every other path, and the
// readiness checks of what this role depends on (the store; the models and Neo4j where turns run;
// the queue).
import type { Config } from '../config/schema.ts';
import type { StartupChecks } from '../doctor/startup.ts';
import { HttpServer } from '../http/server.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { Store } from '../store/store.ts';
import type { Platforms } from './create-platforms.ts';
import type { Roles } from './create-roles.ts';
import type { Turns } from './create-turns.ts';

/** What changes while the app runs and the server reports. */
export interface LiveState {
  /** Set on shutdown: the queue check fails first, so the load balancer stops sending. */
  draining: boolean;
  startupChecks: StartupChecks | undefined;
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

export function webUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}/`;
}

export function createHttp(
  config: Config,
  d: {
    host: string | undefined;
    store: Store;
    metrics: Metrics;
    log: Logger;
    turns: Turns;
    roles: Roles;
    platforms: Platforms;
    live: LiveState;
  },
): HttpServer {
  const { store, turns, roles, platforms, live } = d;
  const { llm, knowledge, embedder } = turns;
  const { redis } = roles;
  const vision = turns.attachments.vision;
  const web = platforms.web;
  return new HttpServer({
    diagnostics: () => live.startupChecks?.states() ?? [],
    port: config.server.port,
    host: d.host ?? serverHost(config),
    metrics: d.metrics,
    log: d.log,
    routes: platforms.routes,
    ...(web ? { fallback: web.http } : {}),
    checks: [
      { name: 'store', check: () => store.ping() },
      ...(roles.runsTurns
        ? [
            { name: 'llm_text', check: () => llm.check() },
            // Without the vision model only image questions fail (with a clear tool result).
            ...(vision
              ? [{ name: 'llm_vision', check: () => vision.check(), optional: true }]
              : []),
            ...(knowledge ? [{ name: 'neo4j', check: knowledge.check }] : []),
            // Without embeddings searches fall back to words: never a reason to be unready.
            ...(embedder
              ? [{ name: 'llm_embed', check: () => embedder.check(), optional: true }]
              : []),
          ]
        : []),
      ...(redis
        ? [
            {
              name: 'queue',
              check: async () => {
                // Unready first on SIGTERM, so the load balancer stops sending before we stop.
                if (live.draining) throw new Error('shutting down');
                await redis.ping();
              },
            },
          ]
        : []),
    ],
  });
}
