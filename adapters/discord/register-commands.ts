// `npm run discord:register`: registers the slash commands globally (production; Discord may take
// up to an hour to show them), or with `-- --guild <id>` in one guild only (instant, for development;
// a guild's commands are server-install only, so user installs need the global registration).
import { REST, Routes } from 'discord.js';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { COMMANDS, guildCommands } from './commands.ts';

async function main(): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const appId = config.discordApplicationId;
  const token = config.secrets.discordToken;
  if (!appId || !token) {
    process.stderr.write(
      'Set DISCORD_TOKEN and DISCORD_APPLICATION_ID to register the slash commands.\n',
    );
    return 2;
  }
  const at = process.argv.indexOf('--guild');
  const guildId = at >= 0 ? process.argv[at + 1] : undefined;
  if (at >= 0 && !guildId) {
    process.stderr.write('--guild needs a guild id.\n');
    return 2;
  }
  const rest = new REST({ api: config.discord.apiUrl }).setToken(token);
  const route = guildId
    ? Routes.applicationGuildCommands(appId, guildId)
    : Routes.applicationCommands(appId);
  const result = (await rest.put(route, {
    body: guildId ? guildCommands() : COMMANDS,
  })) as unknown[];
  process.stdout.write(
    `Registered ${result.length} commands ${guildId ? `in guild ${guildId}` : 'globally (may take up to an hour to appear)'}.\n`,
  );
  return 0;
}

process.exitCode = await main();
