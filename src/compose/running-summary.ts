// The one line start-up ends with: what runs and how to reach it, in words a person reads at a
// terminal and fields a log collector keeps.
import { embedEndpointOf } from '../config/embed-settings.ts';
import type { Config } from '../config/schema.ts';
import { describeTextEndpoint, type TextEndpoint } from '../llm/text-endpoint.ts';

export interface RunningSummary {
  msg: string;
  fields: {
    platforms: string[];
    model: string;
    embeddings: string;
    store: string;
    web: string | undefined;
    port: number;
  };
}

/** A store URL without its credentials (a Redis URL may carry a password). */
export function storeLabel(storeUrl: string): string {
  if (storeUrl.startsWith('sqlite:')) return `SQLite ${storeUrl.replace(/^sqlite:\/\//, '')}`;
  try {
    const u = new URL(storeUrl);
    return `Redis ${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'Redis';
  }
}

function embeddingsLabel(config: Config, embedded: { model: string } | undefined): string {
  const e = embedEndpointOf(config.llm.embed);
  if (e.kind === 'none') return 'none (files and knowledge are searched by words only)';
  if (e.kind === 'embedded')
    return embedded ? `embedded ${embedded.model}` : 'embedded, not running (search by words only)';
  return `${e.baseUrl}${e.model ? ` (${e.model})` : ''}`;
}

export function runningSummary(
  config: Config,
  app: {
    port: number;
    webUrl: string | undefined;
    textEndpoint: TextEndpoint;
    embeddedEmbeddings: { model: string } | undefined;
  },
): RunningSummary {
  const platforms = [
    config.slackTransport
      ? `Slack (${config.slackTransport === 'socket' ? 'Socket Mode' : 'HTTP events'})`
      : '',
    config.discordApplicationId ? 'Discord' : '',
    config.webChat ? 'web chat' : '',
  ].filter(Boolean);
  const fields = {
    platforms,
    model: describeTextEndpoint(app.textEndpoint),
    embeddings: embeddingsLabel(config, app.embeddedEmbeddings),
    store: storeLabel(config.storeUrl),
    web: app.webUrl,
    port: app.port,
  };
  const reach = app.webUrl ? `web chat at ${app.webUrl}` : `port ${app.port}`;
  const msg =
    `threadmind is running: ${reach} | platforms: ${platforms.join(', ')} | model: ${fields.model}` +
    ` | embeddings: ${fields.embeddings} | store: ${fields.store}`;
  return { msg, fields };
}
