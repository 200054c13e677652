// Starts the whole bot against local emulators over real sockets: Bolt and @langchain/openai run
// unmodified. Servers started: the OpenAI/vLLM emulator, the Slack emulator, threadmind's HTTP port.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REST, Routes } from 'discord.js';
import { COMMANDS } from '../../adapters/discord/commands.ts';
import type { ToolRegistry } from '../../src/agent/tool-registry.ts';
import { type RunningApp, startApp } from '../../src/compose/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Config } from '../../src/config/schema.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { HandledEvent } from '../../src/model/handled.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';

export interface Harness {
  llm: OpenAIEmulator;
  vision: OpenAIEmulator;
  slack: SlackEmulator;
  /** Started when the harness is asked for Discord. */
  discord: DiscordEmulator | undefined;
  app: RunningApp;
  config: Config;
  dataDir: string;
  /**
   * Resolves once `count` deliveries of the message with this platform id (Slack ts, Discord
   * snowflake) have been fully handled by the bot — answered, refused or ignored — with what
   * became of each. The explicit "handled" signal: tests wait for it, never for time.
   */
  handled(messageId: string, count?: number, timeoutMs?: number): Promise<HandledEvent[]>;
  /** Stops the bot only (emulators and data stay), for restart tests. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  overrides?: Record<string, unknown>;
  env?: Record<string, string>;
  tools?: ToolRegistry;
  socketMode?: boolean;
  /** Also run Discord against its emulator (commands registered globally). */
  discord?: boolean;
  /** Scopes the Slack bot token was granted (default: all the manifest asks for). */
  slackScopes?: string[];
  /**
   * Many workspaces through OAuth install instead of SLACK_BOT_TOKEN: the emulator's client
   * credentials and this encryption key (comma-separated keys: the first seals).
   */
  slackOAuth?: { encryptionKey: string };
  /** Collects the bot's log lines (pino JSON, from `level` up) here instead of stderr. */
  captureLog?: { level: string; lines: string[] };
}

/** A random THREADMIND_ENCRYPTION_KEY value. */
/** A worker (split roles) on the harness's config, in this process: it runs queued turns. */
export function startWorkerBeside(config: Config): Promise<RunningApp> {
  const worker = { ...config, scale: { ...config.scale, role: 'worker' as const } };
  return startApp(worker, {
    log: createLogger(config.log.level, process.stderr as never),
    host: '127.0.0.1',
  });
}

export function newEncryptionKey(): string {
  return randomBytes(32).toString('base64');
}

const SIGNING_SECRET = 'test-signing-secret';

export async function startHarness(o: HarnessOptions = {}): Promise<Harness> {
  const llm = await startOpenAIEmulator();
  const vision = await startOpenAIEmulator({
    models: [{ id: 'qwen2.5-vl-7b', max_model_len: 16384 }],
  });
  const slack = await startSlackEmulator({
    signingSecret: SIGNING_SECRET,
    ...(o.slackScopes ? { botScopes: o.slackScopes } : {}),
  });
  const discord = o.discord ? await startDiscordEmulator() : undefined;
  if (discord) {
    await new REST({ api: discord.apiUrl })
      .setToken(discord.botToken)
      .put(Routes.applicationCommands(discord.applicationId), { body: COMMANDS });
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-e2e-'));
  const env: Record<string, string> = {
    PORT: '0',
    DATA_DIR: dataDir,
    LLM_TEXT_BASE_URL: llm.baseURL,
    LLM_VISION_BASE_URL: vision.baseURL,
    SLACK_API_URL: slack.apiUrl,
    ...(o.slackOAuth
      ? {
          SLACK_CLIENT_ID: slack.oauthClient.id,
          SLACK_CLIENT_SECRET: slack.oauthClient.secret,
          THREADMIND_ENCRYPTION_KEY: o.slackOAuth.encryptionKey,
        }
      : { SLACK_BOT_TOKEN: slack.botToken }),
    ...(o.socketMode
      ? { SLACK_APP_TOKEN: slack.appToken }
      : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(discord
      ? {
          DISCORD_TOKEN: discord.botToken,
          DISCORD_APPLICATION_ID: discord.applicationId,
          DISCORD_API_URL: discord.apiUrl,
        }
      : {}),
    ...o.env,
  };
  const config = loadConfig({
    env,
    overrides: {
      ...o.overrides,
      slack: { updateIntervalMs: 50, maxRetries: 2, ...(o.overrides?.slack as object | undefined) },
      // The start-up checks call every platform and the store; tests that want them turn them on.
      doctor: { onStart: 'off', ...(o.overrides?.doctor as object | undefined) },
      // The probe of vLLM's priority policy is one more chat request, which tests that count or
      // wait for the model's requests do not expect; test/unit/gpu-share.test.ts covers it.
      sharing: { priority: 'off', ...(o.overrides?.sharing as object | undefined) },
    },
  });
  const capture = o.captureLog;
  const log = capture
    ? createLogger(capture.level, { write: (line: string) => capture.lines.push(line) })
    : createLogger(config.log.level, process.stderr as never);
  const start = () =>
    startApp(config, { log, host: '127.0.0.1', ...(o.tools ? { tools: o.tools } : {}) });
  const seen = new Map<string, HandledEvent[]>();
  const waiters = new Set<() => void>();
  const listen = (running: RunningApp) =>
    running.core.events.on('handled', (e: HandledEvent) => {
      seen.set(e.messageId, [...(seen.get(e.messageId) ?? []), e]);
      for (const w of waiters) w();
    });
  let app = await start();
  listen(app);
  if (!o.socketMode) slack.setEventsUrl(`http://127.0.0.1:${app.port}/slack/events`);
  const h: Harness = {
    llm,
    vision,
    slack,
    discord,
    app,
    config,
    dataDir,
    handled(messageId, count = 1, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const events = seen.get(messageId) ?? [];
          if (events.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(events);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `message ${messageId}: ${seen.get(messageId)?.length ?? 0} of ${count} deliveries handled after ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async restart() {
      await app.stop();
      app = await start();
      listen(app);
      h.app = app;
      if (!o.socketMode) slack.setEventsUrl(`http://127.0.0.1:${app.port}/slack/events`);
    },
    async close() {
      await app.stop();
      await slack.close();
      await discord?.close();
      await llm.close();
      await vision.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}
