// The team's MCP servers (ARCHITECTURE.md, "The team's tools"). config/ names them and says where
// each secret lives; the secrets themselves are read here, from the environment, and nowhere else.
import { z } from 'zod';

const envName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, { message: 'must be an environment variable name' });
const serverName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,23}$/, { message: 'lower-case letters, digits, - and _ (up to 24)' })
  .refine((n) => !n.includes('__'), {
    message: 'must not contain "__" (it joins server and tool)',
  });

const mcpServerSchema = z
  .object({
    name: serverName,
    /** A Streamable HTTP endpoint… */
    url: z.string().url().optional(),
    /** …or a local command spoken to over stdio. */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    /** Header name → the environment variable holding its value (e.g. Authorization: JIRA_MCP_AUTH). */
    headersFromEnv: z.record(z.string(), envName).default({}),
    /** The stdio command's environment: variable → the environment variable holding its value. */
    envFromEnv: z.record(z.string(), envName).default({}),
    connectTimeoutMs: z.number().int().positive().default(10_000),
    callTimeoutMs: z.number().int().positive().default(30_000),
    /** A server that is down (at start or later) is tried again after this, doubling up to retryMaxMs. */
    retryInitialMs: z.number().int().min(10).default(1000),
    retryMaxMs: z.number().int().min(10).default(60_000),
    /** Only these tools (empty: all), never these. */
    allowTools: z.array(z.string()).default([]),
    denyTools: z.array(z.string()).default([]),
    /** Its results may not be read by the channel: an answer that used them goes to the asker only. */
    private: z.boolean().default(false),
    /** Per tool: `always` asks before every call, `never` does not ask; others follow readOnlyHint. */
    approval: z.record(z.string(), z.enum(['always', 'never'])).default({}),
  })
  .strict()
  .refine((s) => (s.url === undefined) !== (s.command === undefined), {
    message: 'give either url (Streamable HTTP) or command (stdio), not both',
  });

export const mcpSettingsSchema = z
  .object({
    servers: z.array(mcpServerSchema).default([]),
    /** Who besides the asker may approve a call: principals of the knowledge ACL (groups, roles). */
    approvers: z.array(z.string()).default([]),
    /** How long a call waits for its approval before the model is told it was not approved. */
    approvalTtlSeconds: z.number().int().min(10).max(86_400).default(900),
    /** Caps on what a server may put in front of the model (and the admin who switches it on). */
    maxDescriptionChars: z.number().int().min(50).max(4000).default(600),
    maxSchemaChars: z.number().int().min(100).max(20_000).default(4000),
    maxResultChars: z.number().int().min(100).max(200_000).default(12_000),
  })
  .strict()
  .superRefine((m, ctx) => {
    const seen = new Set<string>();
    for (const [i, s] of m.servers.entries()) {
      if (seen.has(s.name))
        ctx.addIssue({
          code: 'custom',
          path: ['servers', i, 'name'],
          message: `"${s.name}" is declared twice`,
        });
      seen.add(s.name);
    }
  });

export type McpSettings = z.infer<typeof mcpSettingsSchema>;
export type McpServerSettings = McpSettings['servers'][number];

/** A server with its secrets read from the environment. */
export interface McpServerConfig extends McpServerSettings {
  headers: Record<string, string>;
  env: Record<string, string>;
}

/** Reads each server's headers and env from the named variables; a missing one is a problem. */
export function resolveMcpSecrets(
  m: McpSettings,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): McpServerConfig[] {
  const read = (server: string, from: Record<string, string>) => {
    const out: Record<string, string> = {};
    for (const [key, name] of Object.entries(from)) {
      const v = env[name];
      if (v === undefined || v === '') problems.push(`mcp server "${server}": ${name} is not set`);
      else out[key] = v;
    }
    return out;
  };
  return m.servers.map((s) => ({
    ...s,
    headers: read(s.name, s.headersFromEnv),
    env: read(s.name, s.envFromEnv),
  }));
}
