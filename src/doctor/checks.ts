// Every check `npm run doctor` and the start-up run, in the order they are printed. Platform
// checks come from the adapters (they know their platform's scopes, intents and commands); the
// rest are here. src/doctor sits beside the composition root, so it may import both.
import { discordChecks } from '../../adapters/discord/discord-doctor.ts';
import { slackChecks } from '../../adapters/slack/slack-doctor.ts';
import type { Config } from '../config/schema.ts';
import type { TextEndpoint } from '../llm/text-endpoint.ts';
import type { CheckGroup, CheckResult } from '../model/check-result.ts';
import { egressCheckGroup } from './egress-check.ts';
import { embedCheckGroup } from './embed-check.ts';
import { llmCheckGroups } from './llm-checks.ts';
import { mcpCheckGroups } from './mcp-check.ts';
import { neo4jCheckGroups } from './neo4j-checks.ts';
import { platformCheckGroup } from './platform-checks.ts';
import { rerankCheckGroup } from './rerank-check.ts';
import { searxngCheckGroups } from './searxng-check.ts';
import { type StoreAccess, storeCheckGroup } from './store-check.ts';

export function configResult(config: Config): CheckResult {
  const platforms = [
    config.slackTransport
      ? `Slack (${config.slackTransport === 'socket' ? 'Socket Mode' : 'HTTP events'})`
      : '',
    config.discordApplicationId ? 'Discord' : '',
    config.webChat ? 'web chat' : '',
  ].filter(Boolean);
  if (platforms.length === 0) {
    return {
      name: 'config',
      status: 'fail',
      summary:
        'no chat platform is configured and the web chat is off (WEB_ENABLED=false), so `npm start` refuses to run',
      fix: 'Leave WEB_ENABLED at auto for the web chat, or set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode), and/or DISCORD_TOKEN with DISCORD_APPLICATION_ID (README: "Set up Slack", "Set up Discord").',
    };
  }
  const webOnly = platforms.length === 1 && config.webChat !== null;
  const parts = [
    ...platforms,
    config.storeUrl.startsWith('sqlite:') ? 'SQLite store' : 'Redis store',
    config.neo4j ? 'knowledge graph' : '',
  ].filter(Boolean);
  if (!config.neo4j && config.neo4jWriter) {
    return {
      name: 'config',
      status: 'warn',
      summary: `configuration valid (${parts.join(', ')}), but NEO4J_URI has only the writer account: the bot does not use the graph`,
      fix: 'Also set NEO4J_USER and NEO4J_PASSWORD (a read-only account) for the bot.',
    };
  }
  if (webOnly)
    return {
      name: 'config',
      status: 'ok',
      summary: `web chat only: no Slack or Discord configured (${parts.slice(1).join(', ')})`,
    };
  return { name: 'config', status: 'ok', summary: `configuration valid: ${parts.join(', ')}` };
}

/**
 * `textEndpoint`: the text model start-up uses (or, for `npm run doctor`, would use); the text
 * model's checks describe it.
 */
export function doctorGroups(
  config: Config,
  store: StoreAccess,
  textEndpoint: () => Promise<TextEndpoint>,
): CheckGroup[] {
  return [
    {
      names: ['config'],
      async run(_ctx, report) {
        report(configResult(config));
      },
    },
    ...[...slackChecks(config), ...discordChecks(config)].map(platformCheckGroup),
    ...llmCheckGroups(config, textEndpoint),
    embedCheckGroup(config),
    rerankCheckGroup(config),
    storeCheckGroup(config, store),
    ...neo4jCheckGroups(config),
    ...searxngCheckGroups(config),
    ...mcpCheckGroups(config.mcpServers),
    egressCheckGroup(config),
  ];
}

/** Secrets of a loaded configuration, for the redactor. */
export function configSecrets(config: Config): (string | undefined)[] {
  return [...Object.values(config.secrets), config.neo4j?.password, config.neo4jWriter?.password];
}
