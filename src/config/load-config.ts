// The only module that reads the environment (ARCHITECTURE.md, "Configuration"): everything
// else gets a Config. Each platform's settings and the checks of its secrets live beside each other
// (slack-config.ts, discord-config.ts, web-config.ts, scale-config.ts, neo4j-config.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEncryptionKeys } from '../util/secret-box.ts';
import { checkDiscord } from './discord-config.ts';
import { EMBED_ENV_PATHS } from './embed-settings.ts';
import {
  deepMerge,
  type Env,
  findSecretKeys,
  hasPath,
  isRecord,
  nonEmpty,
  readYaml,
  setPath,
} from './layers.ts';
import { resolveMcpSecrets } from './mcp-config.ts';
import { readNeo4j } from './neo4j-config.ts';
import { RERANK_ENV_PATHS } from './rerank-settings.ts';
import { checkRole } from './scale-config.ts';
import type { Config, ProxyEnv, Secrets } from './schema.ts';
import { EMBEDDED, settingsSchema } from './schema.ts';
import { checkSlack, checkSlackOAuth } from './slack-config.ts';
import { checkWeb } from './web-config.ts';
import { WEB_TOOLS_ENV_PATHS } from './web-tools-settings.ts';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      `threadmind cannot start; fix the configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const DEFAULT_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../config/default.yaml',
);

/** Environment variable → settings path (the table in ARCHITECTURE.md, "Configuration"). */
const ENV_PATHS: Record<string, { path: string[]; type: 'string' | 'int' | 'switch' }> = {
  PORT: { path: ['server', 'port'], type: 'int' },
  LOG_LEVEL: { path: ['log', 'level'], type: 'string' },
  LOG_FORMAT: { path: ['log', 'format'], type: 'string' },
  DATA_DIR: { path: ['dataDir'], type: 'string' },
  STORE_URL: { path: ['store', 'url'], type: 'string' },
  LLM_TEXT_BASE_URL: { path: ['llm', 'text', 'baseUrl'], type: 'string' },
  LLM_TEXT_MODEL: { path: ['llm', 'text', 'model'], type: 'string' },
  LLM_VISION_BASE_URL: { path: ['llm', 'vision', 'baseUrl'], type: 'string' },
  LLM_VISION_MODEL: { path: ['llm', 'vision', 'model'], type: 'string' },
  LLM_LOCAL_MODEL: { path: ['llm', 'local', 'model'], type: 'string' },
  LLM_LOCAL_THREADS: { path: ['llm', 'local', 'threads'], type: 'int' },
  LLM_LOCAL_CONTEXT: { path: ['llm', 'local', 'contextSize'], type: 'int' },
  LLM_LOCAL_PORT: { path: ['llm', 'local', 'port'], type: 'int' },
  HF_ENDPOINT: { path: ['llm', 'local', 'downloadEndpoint'], type: 'string' },
  SLACK_API_URL: { path: ['slack', 'apiUrl'], type: 'string' },
  SLACK_REDIRECT_URL: { path: ['slack', 'oauth', 'redirectUrl'], type: 'string' },
  DISCORD_API_URL: { path: ['discord', 'apiUrl'], type: 'string' },
  DOCTOR_ON_START: { path: ['doctor', 'onStart'], type: 'string' },
  WEB_ENABLED: { path: ['web', 'enabled'], type: 'switch' },
  WEB_HOST: { path: ['web', 'host'], type: 'string' },
  THREADMIND_ROLE: { path: ['scale', 'role'], type: 'string' },
  ...EMBED_ENV_PATHS,
  ...RERANK_ENV_PATHS,
  ...WEB_TOOLS_ENV_PATHS,
};

/** Environment variables that hold secrets: their values are redacted from anything printed. */
const SECRET_ENV = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'DISCORD_TOKEN',
  'LLM_API_KEY',
  'NEO4J_PASSWORD',
  'NEO4J_WRITER_PASSWORD',
  'WEB_AUTH_TOKEN',
  'SLACK_CLIENT_SECRET',
  'THREADMIND_ENCRYPTION_KEY',
];

/** The secret values set in the environment, for redaction even when the config does not load. */
export function secretValuesInEnv(env: Env = process.env): string[] {
  return SECRET_ENV.map((name) => nonEmpty(env[name])).filter((v): v is string => v !== undefined);
}

function either(env: Env, name: string): string | undefined {
  return nonEmpty(env[name]) ?? nonEmpty(env[name.toLowerCase()]);
}

function readProxy(env: Env): ProxyEnv {
  const proxy: ProxyEnv = {
    nodeUsesEnvProxy:
      env.NODE_USE_ENV_PROXY === '1' || /(^|\s)--use-env-proxy\b/.test(env.NODE_OPTIONS ?? ''),
  };
  const http = either(env, 'HTTP_PROXY');
  const https = either(env, 'HTTPS_PROXY');
  const no = either(env, 'NO_PROXY');
  if (http) proxy.httpProxy = http;
  if (https) proxy.httpsProxy = https;
  if (no) proxy.noProxy = no;
  return proxy;
}

function readSecrets(env: Env, problems: string[]): Secrets {
  const secrets: Secrets = {};
  const clientId = nonEmpty(env.SLACK_CLIENT_ID);
  const clientSecret = nonEmpty(env.SLACK_CLIENT_SECRET);
  const key = nonEmpty(env.THREADMIND_ENCRYPTION_KEY);
  if (clientId) secrets.slackClientId = clientId;
  if (clientSecret) secrets.slackClientSecret = clientSecret;
  if (key) {
    const parsed = parseEncryptionKeys(key);
    problems.push(...parsed.problems);
    if (parsed.problems.length === 0) secrets.encryptionKeys = parsed.keys;
  }
  const bot = nonEmpty(env.SLACK_BOT_TOKEN);
  const signing = nonEmpty(env.SLACK_SIGNING_SECRET);
  const app = nonEmpty(env.SLACK_APP_TOKEN);
  const llm = nonEmpty(env.LLM_API_KEY);
  const discord = nonEmpty(env.DISCORD_TOKEN);
  const web = nonEmpty(env.WEB_AUTH_TOKEN);
  if (discord) secrets.discordToken = discord;
  if (web) secrets.webAuthToken = web;
  if (bot) secrets.slackBotToken = bot;
  if (signing) secrets.slackSigningSecret = signing;
  if (app) secrets.slackAppToken = app;
  if (llm) secrets.llmApiKey = llm;
  return secrets;
}

export interface LoadOptions {
  env?: Env;
  /** Extra YAML merged over the defaults (tests); THREADMIND_CONFIG is read as well. */
  overrides?: Record<string, unknown>;
}

/**
 * The settings before validation: defaults, the THREADMIND_CONFIG file, the overrides, then the
 * environment's variables; `layers` are the ones someone wrote (not the defaults).
 */
function readLayers(
  env: Env,
  opts: LoadOptions,
  problems: string[],
): { raw: Record<string, unknown>; layers: Record<string, unknown>[] } {
  let raw = readYaml(DEFAULT_FILE, problems);
  const layers: Record<string, unknown>[] = [];
  const extraFile = nonEmpty(env.THREADMIND_CONFIG);
  if (extraFile) {
    const extra = readYaml(extraFile, problems);
    const secretKeys: string[] = [];
    findSecretKeys(extra, '', secretKeys);
    for (const k of secretKeys) {
      problems.push(
        `${extraFile}: "${k}" looks like a secret; secrets are read only from environment variables`,
      );
    }
    raw = deepMerge(raw, extra);
    layers.push(extra);
  }
  if (opts.overrides) {
    raw = deepMerge(raw, opts.overrides);
    layers.push(opts.overrides);
  }
  for (const [name, spec] of Object.entries(ENV_PATHS)) {
    const value = nonEmpty(env[name]);
    if (value === undefined) continue;
    if (spec.type === 'int') {
      const n = Number(value);
      if (!Number.isInteger(n)) problems.push(`${name} must be a whole number, got "${value}"`);
      else setPath(raw, spec.path, n);
    } else if (spec.type === 'switch') {
      const v = value.toLowerCase();
      if (v === 'true' || v === 'false') setPath(raw, spec.path, v === 'true');
      else if (v === 'auto') setPath(raw, spec.path, 'auto');
      else problems.push(`${name} must be true, false or auto, got "${value}"`);
    } else {
      setPath(raw, spec.path, value);
    }
  }
  return { raw, layers };
}

/** Loads defaults, the optional THREADMIND_CONFIG file and the environment; lists every problem at once. */
export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const problems: string[] = [];
  const { raw, layers } = readLayers(env, opts, problems);
  // Whether the model endpoints were chosen by someone, not just left at the defaults' addresses.
  const chosen = (keys: readonly string[], envName: string) =>
    nonEmpty(env[envName]) !== undefined || layers.some((layer) => hasPath(layer, keys));

  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const where = issue.path.join('.') || '(top level)';
      const envName = Object.entries(ENV_PATHS).find(([, s]) => s.path.join('.') === where)?.[0];
      problems.push(`${where}${envName ? ` (${envName})` : ''}: ${issue.message}`);
    }
  }
  const secrets = readSecrets(env, problems);
  const slackOAuth = checkSlackOAuth(secrets, env, problems);
  // Checked even when the settings are invalid, so every problem is listed in one go.
  const slackMode =
    isRecord(raw.slack) && typeof raw.slack.mode === 'string' ? raw.slack.mode : 'auto';
  const slackTransport = checkSlack(
    { mode: slackMode as Config['slack']['mode'] },
    secrets,
    problems,
    slackOAuth,
  );
  const discordApplicationId = checkDiscord(env, secrets, problems);
  const graph = readNeo4j(env, problems);
  const webChat = checkWeb(
    raw.web,
    slackTransport !== null || discordApplicationId !== null,
    secrets,
    problems,
  );
  if (parsed.success)
    checkRole(parsed.data, { webChat, slackTransport, discordApplicationId }, problems);
  const mcpServers = parsed.success ? resolveMcpSecrets(parsed.data.mcp, env, problems) : [];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const settings = parsed.data;

  const storeUrl = settings.store.url || `sqlite://${path.join(settings.dataDir, 'threadmind.db')}`;
  const textModel =
    settings.llm.text.baseUrl === EMBEDDED
      ? 'embedded'
      : chosen(['llm', 'text', 'baseUrl'], 'LLM_TEXT_BASE_URL')
        ? 'remote'
        : 'probe';
  const visionConfigured = chosen(['llm', 'vision', 'baseUrl'], 'LLM_VISION_BASE_URL');
  return {
    ...settings,
    secrets,
    slackTransport,
    slackOAuth,
    discordApplicationId,
    ...graph,
    storeUrl,
    proxy: readProxy(env),
    webChat,
    textModel,
    visionConfigured,
    mcpServers,
  };
}
