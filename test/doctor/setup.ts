// A set-up the doctor can examine: Slack, Discord and four vLLM emulators (text, vision,
// embeddings, rerank), each healthy unless the
// test asks for a fault, and ways to run the doctor in this process or as `npm run doctor` does.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REST, Routes } from 'discord.js';
import { COMMANDS } from '../../adapters/discord/commands.ts';
import { manifestBotScopes } from '../../adapters/slack/slack-doctor.ts';
import { createStore } from '../../src/compose/create-store.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { configSecrets, doctorGroups } from '../../src/doctor/checks.ts';
import { formatChecklist } from '../../src/doctor/format.ts';
import { redactor } from '../../src/doctor/redact.ts';
import { runChecks } from '../../src/doctor/run-checks.ts';
import { once, plannedTextEndpoint } from '../../src/doctor/text-endpoint.ts';
import type { CheckResult } from '../../src/model/check-result.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import type { DiscordEmulatorOptions } from '../emulators/discord/types.ts';
import {
  type EmulatorOptions,
  type OpenAIEmulator,
  type Responder,
  startOpenAIEmulator,
} from '../emulators/openai/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';

/** A model that calls a tool when offered one, as a tool-calling model asked to call it does. */
export const callsOfferedTool: Responder = (req) => {
  const name = req?.tools?.[0]?.function?.name;
  return typeof name === 'string'
    ? { toolCalls: [{ name, arguments: { ok: true } }] }
    : { content: 'red' };
};

export interface FaultOptions {
  slackScopes?: string[];
  discord?: DiscordEmulatorOptions;
  registerCommands?: boolean;
  text?: EmulatorOptions;
  vision?: EmulatorOptions;
  /** The embeddings server's options; false: no embeddings endpoint configured. */
  embed?: EmulatorOptions | false;
  /** The rerank server's options; false: no rerank endpoint configured. */
  rerank?: EmulatorOptions | false;
  /** Secrets the emulators accept (to show they are never printed). */
  slackBotToken?: string;
  slackAppToken?: string;
  llmApiKey?: string;
}

export interface DoctorSetup {
  slack: SlackEmulator;
  discord: DiscordEmulator;
  text: OpenAIEmulator;
  vision: OpenAIEmulator;
  embed: OpenAIEmulator | undefined;
  rerank: OpenAIEmulator | undefined;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startSetup(o: FaultOptions = {}): Promise<DoctorSetup> {
  const slack = await startSlackEmulator({
    signingSecret: 'unused-in-socket-mode',
    botScopes: o.slackScopes ?? manifestBotScopes(),
    ...(o.slackBotToken ? { botToken: o.slackBotToken } : {}),
    ...(o.slackAppToken ? { appToken: o.slackAppToken } : {}),
  });
  const discord = await startDiscordEmulator(o.discord);
  if (o.registerCommands !== false) {
    await new REST({ api: discord.apiUrl })
      .setToken(discord.botToken)
      .put(Routes.applicationCommands(discord.applicationId), { body: COMMANDS });
  }
  const key = o.llmApiKey ? { apiKey: o.llmApiKey } : {};
  const text = await startOpenAIEmulator({ ...key, ...o.text });
  text.setResponder(callsOfferedTool);
  const vision = await startOpenAIEmulator({
    models: [{ id: 'qwen2.5-vl-7b', max_model_len: 16384 }],
    ...key,
    ...o.vision,
  });
  const embed =
    o.embed === false
      ? undefined
      : await startOpenAIEmulator({
          models: [],
          embeddingModels: [{ id: 'BAAI/bge-m3', dimensions: 1024, max_model_len: 8192 }],
          ...key,
          ...o.embed,
        });
  const rerank =
    o.rerank === false
      ? undefined
      : await startOpenAIEmulator({
          models: [],
          rerankModels: [{ id: 'BAAI/bge-reranker-v2-m3', max_model_len: 8192 }],
          ...key,
          ...o.rerank,
        });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-doctor-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SLACK_API_URL: slack.apiUrl,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_TOKEN: discord.botToken,
    DISCORD_APPLICATION_ID: discord.applicationId,
    LLM_TEXT_BASE_URL: text.baseURL,
    LLM_VISION_BASE_URL: vision.baseURL,
    ...(embed ? { LLM_EMBED_BASE_URL: embed.baseURL } : {}),
    ...(rerank ? { LLM_RERANK_BASE_URL: rerank.baseURL } : {}),
    ...(o.llmApiKey ? { LLM_API_KEY: o.llmApiKey } : {}),
  };
  return {
    slack,
    discord,
    text,
    vision,
    embed,
    rerank,
    env,
    async close() {
      await Promise.all([
        slack.close(),
        discord.close(),
        text.close(),
        vision.close(),
        embed?.close(),
        rerank?.close(),
      ]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface DoctorRun {
  results: CheckResult[];
  byName: Map<string, CheckResult>;
  output: string;
  failed: boolean;
}

/** The doctor's checks in this process, as `npm run doctor` runs them. */
export async function runDoctor(
  env: Record<string, string>,
  stepTimeoutMs = 5000,
): Promise<DoctorRun> {
  const config = loadConfig({ env });
  const results = await runChecks(
    doctorGroups(
      config,
      { open: async () => ({ store: await createStore(config.storeUrl), owned: true }) },
      once(() => plannedTextEndpoint(config)),
    ),
    { stepTimeoutMs, modelProbes: true, redact: redactor(configSecrets(config)) },
  );
  return {
    results,
    byName: new Map(results.map((r) => [r.name, r])),
    output: formatChecklist(results, 0),
    failed: results.some((r) => r.status === 'fail'),
  };
}

/** `npm run doctor` as an operator runs it: a child process, its stdout, stderr and exit code. */
export function doctorProcess(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['bin/run.mjs', 'src/cli/doctor.ts'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
