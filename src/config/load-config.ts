// The only module that reads the environment (ARCHITECTURE.md, "Configuration"): everything
// else gets a Config.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { parseEncryptionKeys } from '../util/secret-box.ts';
import { EMBED_ENV_PATHS } from './embed-settings.ts';
import type { Config, ProxyEnv, Secrets, Settings } from './schema.ts';
import { EMBEDDED, settingsSchema } from './schema.ts';

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

type Env = Record<string, string | undefined>;

const DEFAULT_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../config/default.yaml',
);

/** Environment variable → settings path (the table in ARCHITECTURE.md, "Configuration"). */
const ENV_PATHS: Record<string, { path: string[]; type: 'string' | 'int' | 'switch' }> = {
  PORT: { path: ['server', 'port'], type: 'int' },
  LOG_LEVEL: { path: ['log', 'level'], type: 'string' },
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

const SECRET_WORDS = /token|secret|password|api_?key/i;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isRecord(b) && isRecord(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!isRecord(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys.at(-1);
  if (last !== undefined) node[last] = value;
}

function hasPath(obj: unknown, keys: readonly string[]): boolean {
  let node = obj;
  for (const key of keys) {
    if (!isRecord(node) || !(key in node)) return false;
    node = node[key];
  }
  return true;
}

function findSecretKeys(obj: unknown, prefix: string, found: string[]): void {
  if (!isRecord(obj)) return;
  for (const [k, v] of Object.entries(obj)) {
    const where = prefix ? `${prefix}.${k}` : k;
    if (SECRET_WORDS.test(k)) found.push(where);
    findSecretKeys(v, where, found);
  }
}

function readYaml(file: string, problems: string[]): Record<string, unknown> {
  try {
    const parsed: unknown = parseYaml(readFileSync(file, 'utf8'));
    if (parsed === null || parsed === undefined) return {};
    if (!isRecord(parsed)) {
      problems.push(`${file}: expected a mapping of settings at the top level`);
      return {};
    }
    return parsed;
  } catch (err) {
    problems.push(`${file}: ${err instanceof Error ? err.message : String(err)}`);
    return {};
  }
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
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

/** OAuth mode: many workspaces, each installation's tokens sealed in the store. */
function checkSlackOAuth(s: Secrets, env: Env, problems: string[]): boolean {
  if (!s.slackClientId && !s.slackClientSecret) return false;
  if (!s.slackClientId || !s.slackClientSecret)
    problems.push(
      'SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are both needed to install into workspaces (Basic Information → App Credentials)',
    );
  if (s.slackBotToken)
    problems.push(
      'SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set: use one workspace with its bot token, or many workspaces through OAuth install, not both',
    );
  if (s.slackAppToken)
    problems.push(
      'installing into many workspaces needs the HTTP Events API (SLACK_SIGNING_SECRET); unset SLACK_APP_TOKEN',
    );
  if (!s.slackSigningSecret)
    problems.push(
      'SLACK_SIGNING_SECRET is required with SLACK_CLIENT_ID (Basic Information → Signing Secret)',
    );
  if (!nonEmpty(env.THREADMIND_ENCRYPTION_KEY))
    problems.push(
      'THREADMIND_ENCRYPTION_KEY is required with SLACK_CLIENT_ID: installation tokens are stored encrypted (generate one with `openssl rand -base64 32`)',
    );
  return true;
}

function checkSlack(
  settings: Pick<Config['slack'], 'mode'>,
  s: Secrets,
  problems: string[],
  oauth: boolean,
): Config['slackTransport'] {
  if (oauth) return 'http';
  if (!s.slackBotToken) {
    if (s.slackSigningSecret || s.slackAppToken) {
      problems.push(
        'SLACK_BOT_TOKEN is required when SLACK_SIGNING_SECRET or SLACK_APP_TOKEN is set (Slack app → OAuth & Permissions → Bot User OAuth Token, xoxb-…)',
      );
    }
    return null;
  }
  if (!s.slackBotToken.startsWith('xoxb-')) {
    problems.push(
      'SLACK_BOT_TOKEN must be a bot token starting with xoxb- (OAuth & Permissions → Bot User OAuth Token)',
    );
  }
  if (s.slackAppToken && !s.slackAppToken.startsWith('xapp-')) {
    problems.push(
      'SLACK_APP_TOKEN must be an app-level token starting with xapp- (Basic Information → App-Level Tokens, scope connections:write)',
    );
  }
  const mode = settings.mode === 'auto' ? (s.slackAppToken ? 'socket' : 'http') : settings.mode;
  if (mode === 'socket' && !s.slackAppToken) {
    problems.push(
      'SLACK_APP_TOKEN is required for slack.mode=socket (Basic Information → App-Level Tokens)',
    );
  }
  if (mode === 'http' && !s.slackSigningSecret) {
    problems.push(
      'SLACK_SIGNING_SECRET is required when SLACK_BOT_TOKEN is set (Basic Information → Signing Secret), or set SLACK_APP_TOKEN to use Socket Mode',
    );
  }
  return mode;
}

function checkDiscord(env: Env, s: Secrets, problems: string[]): string | null {
  const appId = nonEmpty(env.DISCORD_APPLICATION_ID);
  if (!s.discordToken) {
    if (appId)
      problems.push(
        'DISCORD_TOKEN is required when DISCORD_APPLICATION_ID is set (Developer Portal → your app → Bot → Reset Token)',
      );
    return null;
  }
  if (!appId) {
    problems.push(
      'DISCORD_APPLICATION_ID is required when DISCORD_TOKEN is set (Developer Portal → your app → General Information → Application ID)',
    );
    return null;
  }
  if (!/^\d{17,20}$/.test(appId))
    problems.push(`DISCORD_APPLICATION_ID must be a numeric snowflake id, got "${appId}"`);
  return appId;
}

function readNeo4j(
  env: Env,
  problems: string[],
): { neo4j: Config['neo4j']; neo4jWriter: Config['neo4jWriter'] } {
  const uri = nonEmpty(env.NEO4J_URI);
  const user = nonEmpty(env.NEO4J_USER);
  const password = env.NEO4J_PASSWORD;
  const writerUser = nonEmpty(env.NEO4J_WRITER_USER);
  const writerPassword = env.NEO4J_WRITER_PASSWORD;
  if (!uri) {
    if (user || password || writerUser)
      problems.push(
        'NEO4J_URI is required when NEO4J_USER or NEO4J_WRITER_USER is set (e.g. neo4j://graph.internal:7687)',
      );
    return { neo4j: null, neo4jWriter: null };
  }
  if (!/^(neo4j|bolt)(\+s|\+ssc)?:\/\//.test(uri))
    problems.push(
      `NEO4J_URI must start with neo4j://, neo4j+s://, bolt:// or bolt+s://, got "${uri}"`,
    );
  const database = nonEmpty(env.NEO4J_DATABASE);
  const extra = database ? { database } : {};
  let neo4j: Config['neo4j'] = null;
  if (user && password) neo4j = { uri, user, password, ...extra };
  const neo4jWriter =
    writerUser && writerPassword
      ? { uri, user: writerUser, password: writerPassword, ...extra }
      : null;
  // The ingest command needs only the writer; the bot never uses the writer account.
  if (!neo4j && !neo4jWriter) {
    problems.push(
      'NEO4J_USER and NEO4J_PASSWORD (the read-only account the bot uses) are required when NEO4J_URI is set',
    );
  }
  return { neo4j, neo4jWriter };
}

/** Names of this machine's loopback interface: the web chat is private there. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Shortest WEB_AUTH_TOKEN accepted: it is the only lock on an exposed chat. */
const WEB_TOKEN_MIN = 16;

function checkWeb(
  web: unknown,
  platformConfigured: boolean,
  s: Secrets,
  problems: string[],
): Config['webChat'] {
  if (!isRecord(web) || typeof web.host !== 'string') return null;
  const on = web.enabled === true || (web.enabled === 'auto' && !platformConfigured);
  if (!on) return null;
  const exposed = !isLoopbackHost(web.host);
  if (exposed && !s.webAuthToken)
    problems.push(
      `WEB_AUTH_TOKEN is required when the web chat listens beyond loopback (WEB_HOST=${web.host}); set a long random value, e.g. from \`openssl rand -hex 24\`, or leave WEB_HOST at 127.0.0.1`,
    );
  if (s.webAuthToken && s.webAuthToken.length < WEB_TOKEN_MIN)
    problems.push(`WEB_AUTH_TOKEN must be at least ${WEB_TOKEN_MIN} characters long`);
  return { host: web.host, exposed };
}

/** The split roles share the queue and every state through Redis; the web chat is one process's. */
function checkRole(
  s: Settings,
  platforms: Pick<Config, 'webChat' | 'slackTransport' | 'discordApplicationId'>,
  problems: string[],
): void {
  const role = s.scale.role;
  if (role === 'all') return;
  const { webChat } = platforms;
  if (!/^rediss?:\/\//.test(s.store.url))
    problems.push(
      `THREADMIND_ROLE=${role} needs a shared Redis store: set STORE_URL=redis://host:6379 (only THREADMIND_ROLE=all runs on SQLite)`,
    );
  if (webChat)
    problems.push(
      `the web chat runs only with THREADMIND_ROLE=all; set WEB_ENABLED=false for THREADMIND_ROLE=${role}`,
    );
  if (role === 'gateway' && !platforms.discordApplicationId)
    problems.push(
      'THREADMIND_ROLE=gateway holds the Discord gateway: set DISCORD_TOKEN and DISCORD_APPLICATION_ID',
    );
  if (role === 'ingress' && !platforms.slackTransport)
    problems.push(
      'THREADMIND_ROLE=ingress receives Slack events: set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN)',
    );
}

export interface LoadOptions {
  env?: Env;
  /** Extra YAML merged over the defaults (tests); THREADMIND_CONFIG is read as well. */
  overrides?: Record<string, unknown>;
}

/** Loads defaults, the optional THREADMIND_CONFIG file and the environment; lists every problem at once. */
export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const problems: string[] = [];
  let raw = readYaml(DEFAULT_FILE, problems);
  // Whether the model endpoints were chosen by someone, not just left at the defaults' addresses.
  const chosen = (keys: readonly string[], envName: string) =>
    nonEmpty(env[envName]) !== undefined || layers.some((layer) => hasPath(layer, keys));
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
  };
}
