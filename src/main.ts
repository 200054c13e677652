// Entry point: `npm start`.
import { ConfigError, loadConfig } from './config/load-config.ts';
import { applyLangChainEnvironment } from './config/runtime-env.ts';
import type { Config } from './config/schema.ts';
import { createProcessLogger, isPretty } from './log/logger.ts';

const NO_PLATFORM = `threadmind has no chat platform to serve (WEB_ENABLED=false turns off the web chat). Set one of:
  the web chat:       WEB_ENABLED=true (or auto)
  Slack over HTTP:    SLACK_BOT_TOKEN=xoxb-…  SLACK_SIGNING_SECRET=…   (events at POST /slack/events)
  Slack Socket Mode:  SLACK_BOT_TOKEN=xoxb-…  SLACK_APP_TOKEN=xapp-…
  Discord:            DISCORD_TOKEN=…  DISCORD_APPLICATION_ID=…   (then npm run discord:register)
and point it at your model server with LLM_TEXT_BASE_URL (default http://localhost:8000/v1).
See README.md, "Set up Slack" and "Set up Discord".
`;

function nextSteps(webUrl: string, checks: { status: string }[]): string {
  const failed = checks.filter((c) => c.status === 'fail').length;
  const then =
    failed > 0
      ? `${failed} check${failed === 1 ? '' : 's'} failed (✗ above, each with its fix); \`npm run doctor\` checks again.`
      : 'Open it in a browser and ask a question; `npm run doctor` checks the set-up.';
  return `\n  threadmind web chat: ${webUrl}\n  ${then}\n\n`;
}

function load(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

async function main(): Promise<void> {
  const config = load();
  if (!config.slackTransport && !config.discordApplicationId && !config.webChat) {
    process.stderr.write(NO_PLATFORM);
    process.exit(2);
  }
  // Before LangChain is loaded: its callback handlers read these when they are constructed.
  applyLangChainEnvironment();
  const { startApp } = await import('./compose/app.ts');
  const log = createProcessLogger(config.log);
  let app: Awaited<ReturnType<typeof startApp>>;
  // A fatal report stops the app and exits, for the supervisor to start it afresh.
  let fatal: (reason: string) => void = (reason) => {
    log.fatal({ reason }, 'threadmind must restart');
    process.exit(1);
  };
  try {
    app = await startApp(config, { log, onFatal: (reason) => fatal(reason) });
  } catch (err) {
    log.fatal({ err }, 'threadmind could not start');
    process.exit(1);
  }
  // For the person who just ran `npm start`: the address and what to do next, set apart below the
  // start-up checks. A log collector reading JSON lines has the same in "threadmind is running".
  if (app.webUrl && isPretty(config.log.format, process.stdout)) {
    const { webUrl, startupChecks } = app;
    (startupChecks?.done ?? Promise.resolve()).then(
      () => process.stdout.write(nextSteps(webUrl, startupChecks?.states() ?? [])),
      () => undefined,
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'unclean shutdown');
        process.exit(1);
      },
    );
  };
  fatal = (reason) => {
    log.fatal({ reason }, 'threadmind must restart');
    if (stopping) return;
    stopping = true;
    app.stop().finally(() => process.exit(1));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // One conversation's bug must not take the others down: log it and keep serving.
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
}

await main();
