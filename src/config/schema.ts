import { z } from 'zod';
import { channelSettingsSchema, settingsPatchSchema } from '../core/channel-settings-schema.ts';
import { knowledgeSettingsSchema, type Neo4jConnection } from '../knowledge/settings.ts';
import { discordSettingsSchema } from './discord-config.ts';
import { embedSettingsSchema } from './embed-settings.ts';
import { type McpServerConfig, mcpSettingsSchema } from './mcp-config.ts';
import { rerankSettingsSchema } from './rerank-settings.ts';
import { scaleSettingsSchema } from './scale-config.ts';
import type { ProxyEnv, Secrets } from './secrets.ts';
import { sharingSettingsSchema } from './sharing-config.ts';
import { slackSettingsSchema } from './slack-config.ts';
import { webSettingsSchema } from './web-config.ts';
import { webToolsSettingsSchema } from './web-tools-settings.ts';

const url = z.string().url();

/** `LLM_TEXT_BASE_URL=embedded`: the in-process model behind its own loopback server. */
export const EMBEDDED = 'embedded';
const positiveInt = z.number().int().positive();

/** Settings that may appear in YAML. Secrets are deliberately absent: see `secretsSchema`. */
export const settingsSchema = z
  .object({
    server: z
      .object({
        port: z.number().int().min(0).max(65535),
        shutdownGraceMs: positiveInt,
      })
      .strict(),
    log: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
        /** auto: short readable lines when stdout is a terminal, JSON lines otherwise. */
        format: z.enum(['auto', 'json', 'pretty']),
      })
      .strict(),
    dataDir: z.string().min(1),
    store: z
      .object({
        url: z.string().refine((v) => v === '' || /^(sqlite|redis|rediss):\/\//.test(v), {
          message:
            'must start with sqlite:// or redis:// (or be empty for the default SQLite file)',
        }),
        dedupeTtlSeconds: z.number().int().min(600, {
          message: 'must be at least 600: Slack retries an event for about 5 minutes',
        }),
        lockTtlSeconds: positiveInt,
        historyMaxMessages: positiveInt,
      })
      .strict(),
    llm: z
      .object({
        requestTimeoutMs: positiveInt,
        firstTokenTimeoutMs: positiveInt,
        maxRetries: z.number().int().min(0).max(10),
        text: z
          .object({
            baseUrl: z.string().refine((v) => v === EMBEDDED || url.safeParse(v).success, {
              message: `must be a URL (e.g. http://gpu-node:8000/v1) or "${EMBEDDED}"`,
            }),
            model: z.string(),
            temperature: z.number().min(0).max(2),
            maxReplyTokens: positiveInt,
          })
          .strict(),
        vision: z
          .object({
            baseUrl: url,
            model: z.string(),
            maxReplyTokens: positiveInt,
            timeoutMs: positiveInt,
          })
          .strict(),
        local: z
          .object({
            model: z.string(),
            threads: z.number().int().min(0),
            contextSize: z.number().int().min(512),
            port: z.number().int().min(0).max(65535),
            probeTimeoutMs: positiveInt,
            downloadEndpoint: z.string(),
          })
          .strict(),
        embed: embedSettingsSchema,
        rerank: rerankSettingsSchema,
      })
      .strict(),
    agent: z
      .object({
        name: z.string().min(1),
        maxToolRounds: positiveInt,
        turnTimeoutMs: positiveInt,
        historyTurnsInPrompt: positiveInt,
      })
      .strict(),
    core: z
      .object({
        maxConcurrentTurns: positiveInt,
        maxQueuedPerSession: positiveInt,
      })
      .strict(),
    slack: slackSettingsSchema,
    discord: discordSettingsSchema,
    web: webSettingsSchema,
    attachments: z
      .object({
        maxFileBytes: positiveInt,
        downloadTimeoutMs: positiveInt,
        slackFileHosts: z.array(z.string().min(1)),
        waitForIngestMs: z.number().int().min(0),
        extract: z
          .object({
            timeoutMs: positiveInt,
            maxMemoryMb: z.number().int().min(32),
            maxPages: positiveInt,
            maxChars: positiveInt,
            maxUnzippedBytes: positiveInt,
          })
          .strict(),
        images: z
          .object({
            maxInputPixels: positiveInt,
            maxSide: z.number().int().min(64),
            timeoutMs: positiveInt,
          })
          .strict(),
        search: z
          .object({
            maxHits: z.number().int().min(1).max(50),
            maxChars: z.number().int().min(500),
            minCosine: z.number().min(-1).max(1),
            sentenceVectors: z.boolean(),
            queryTimeoutMs: positiveInt,
            indexCacheBytes: z.number().int().min(0),
          })
          .strict(),
      })
      .strict(),
    knowledge: knowledgeSettingsSchema,
    channels: z
      .object({
        defaults: channelSettingsSchema,
        /** Per channel, keyed `<platform>:<project>:<channel>`; chat changes win over these. */
        overrides: z.record(
          z.string().regex(/^(slack|discord|web):[^:]+:[^:]+$/, {
            message: 'keys are <platform>:<project>:<channel>, e.g. slack:T0123:C0456',
          }),
          settingsPatchSchema,
        ),
      })
      .strict(),
    feedback: z
      .object({
        /** Adds a `channel` label to threadmind_feedback_total (one series per channel). */
        metricsByChannel: z.boolean(),
        retentionDays: z.number().int().min(1).max(3650),
        maxReasonChars: z.number().int().min(1).max(3000),
      })
      .strict(),
    interactions: z
      .object({
        /** How long a confirmation (share from a private place, erase) waits for its answer. */
        confirmTtlSeconds: z.number().int().min(1).max(86_400),
      })
      .strict(),
    threadContext: z
      .object({
        enabled: z.boolean(),
        maxMessages: z.number().int().min(1).max(5000),
      })
      .strict(),
    memory: z
      .object({
        compressAtTokens: z.number().int().min(0),
        keepRecentTurns: z.number().int().min(1).max(20),
        maxModelLenFallback: z.number().int().min(1024),
        toolOutputMaxChars: z.number().int().min(100),
        postSummaries: z.boolean(),
        summaryMaxTokens: z.number().int().min(64),
        summaryTimeoutMs: positiveInt,
      })
      .strict(),
    doctor: z
      .object({
        onStart: z.enum(['off', 'quick', 'full']),
        stepTimeoutMs: positiveInt,
      })
      .strict(),
    scale: scaleSettingsSchema,
    webTools: webToolsSettingsSchema,
    sharing: sharingSettingsSchema,
    mcp: mcpSettingsSchema,
  })
  .strict();

export type Settings = z.infer<typeof settingsSchema>;
export type { ProxyEnv, Secrets } from './secrets.ts';

export interface Config extends Settings {
  secrets: Secrets;
  /** The Slack transport in effect, or null when Slack is not configured. */
  slackTransport: 'http' | 'socket' | null;
  /** Many workspaces installed through OAuth (tokens in the store, sealed), instead of SLACK_BOT_TOKEN. */
  slackOAuth: boolean;
  /** Discord application id when Discord is configured (DISCORD_TOKEN and DISCORD_APPLICATION_ID). */
  discordApplicationId: string | null;
  /**
   * The local web chat when it is served (on with no other platform, or with WEB_ENABLED=true);
   * `exposed`: listening beyond loopback, which requires WEB_AUTH_TOKEN.
   */
  webChat: { host: string; exposed: boolean } | null;
  /** The knowledge graph's reader account (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD); null: disabled. */
  neo4j: Neo4jConnection | null;
  /** The ingest command's writer account (NEO4J_WRITER_USER, NEO4J_WRITER_PASSWORD), if set. */
  neo4jWriter: Neo4jConnection | null;
  /** SQLite path or Redis URL after defaults. */
  storeUrl: string;
  /**
   * Where the text model comes from: `remote` (a configured server), `embedded` (in-process), or
   * `probe` (nothing configured: the default address if it answers, else embedded).
   */
  textModel: 'remote' | 'embedded' | 'probe';
  /** Whether a vision endpoint was configured (not just the default address). */
  visionConfigured: boolean;
  /** Proxy variables as the environment has them (the doctor's egress check reports them). */
  proxy: ProxyEnv;
  /** The MCP servers with their headers and env read from the environment. */
  mcpServers: McpServerConfig[];
}
