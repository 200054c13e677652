// The platforms this process serves in its role: Slack (not on a gateway), Discord (not on
// ingress; its gateway behind a lease when split), the web chat; and the HTTP routes they mount.
import { DiscordAdapter } from '../../adapters/discord/discord-adapter.ts';
import { SlackAdapter } from '../../adapters/slack/slack-adapter.ts';
import { WebAdapter } from '../../adapters/web/web-adapter.ts';
import type { Config } from '../config/schema.ts';
import type { Conversation } from '../core/conversation.ts';
import type { RouteHandler } from '../http/server.ts';
import type { PlatformGroups } from '../knowledge/platform-groups.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import { GatewayLease } from '../queue/gateway-lease.ts';
import { StoreGatewaySessions } from '../queue/gateway-session.ts';
import { RedisRateLimits } from '../queue/shared-rate-limits.ts';
import { StoreRecords } from '../store/plain-records.ts';
import { StoreSealedRecords } from '../store/sealed-records.ts';
import type { Store } from '../store/store.ts';
import { SecretBox } from '../util/secret-box.ts';
import type { Roles } from './create-roles.ts';

export interface PlatformsDeps {
  core: Conversation;
  store: Store;
  log: Logger;
  /** Slack user groups and Discord roles feed knowledge access (ARCHITECTURE.md, "Knowledge"). */
  groups: PlatformGroups | undefined;
  roles: Roles;
}

export interface Platforms {
  slack: SlackAdapter | undefined;
  discord: DiscordAdapter | undefined;
  web: WebAdapter | undefined;
  gatewayLease: GatewayLease | undefined;
  routes: Map<string, RouteHandler>;
}

export function createPlatforms(config: Config, d: PlatformsDeps): Platforms {
  const { core, store, log, roles } = d;
  const { role, redis } = roles;
  const adapterDeps = { config, core, log, groups: d.groups };
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
  const gatewayLease =
    config.discordApplicationId && role === 'gateway'
      ? new GatewayLease(
          store,
          { key: `gateway-lease:discord:${config.discordApplicationId}`, ...config.scale.gateway },
          log.child({ component: 'gateway' }),
        )
      : undefined;
  if (config.discordApplicationId && role !== 'ingress') {
    discord = new DiscordAdapter({
      ...adapterDeps,
      rateLimits: redis
        ? new RedisRateLimits(redis, `threadmind:discord-rest:${config.discordApplicationId}`)
        : undefined,
      // The gateway's session, for the next holder of the lease to resume.
      handover:
        redis && role === 'gateway'
          ? {
              // Saved only while this process holds the gateway lease (its fencing token).
              sessions: new StoreGatewaySessions(
                store,
                config.discordApplicationId,
                () => gatewayLease?.fence,
              ),
              saveMs: config.scale.gateway.sessionSaveMs,
            }
          : undefined,
    });
  }
  const web = config.webChat ? new WebAdapter({ ...adapterDeps, store: store.kv }) : undefined;
  return { slack, discord, web, gatewayLease, routes };
}

/**
 * Connects the platforms this role talks to at once: Slack's receiver (listening unless a worker),
 * Discord's gateway (`all`) or only its REST client (a worker; a gateway waits for its lease).
 */
export async function startPlatforms({ slack, discord }: Platforms, roles: Roles): Promise<void> {
  await slack?.start({ listen: roles.role !== 'worker' });
  if (roles.role === 'all') await discord?.start();
  else if (roles.role === 'worker') await discord?.startRest();
}

/** A gateway process connects Discord's gateway only while it holds the lease. */
export function startGatewayLease(
  { discord, gatewayLease }: Platforms,
  metrics: Metrics,
  onFatal: ((reason: string) => void) | undefined,
): void {
  if (!gatewayLease || !discord) return;
  const gateway = discord;
  gatewayLease.start({
    acquired: async () => {
      await gateway.start();
      metrics.gatewayActive.set(1);
    },
    lost: async () => {
      metrics.gatewayActive.set(0);
      await gateway.stop();
      onFatal?.('the Discord gateway lease was lost to another process');
    },
  });
}
