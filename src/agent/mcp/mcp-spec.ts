// What the agent needs to know of one MCP server (src/config/mcp-config.ts fills it, secrets read).

export interface McpServerSpec {
  name: string;
  url?: string | undefined;
  command?: string | undefined;
  args: string[];
  headers: Record<string, string>;
  env: Record<string, string>;
  connectTimeoutMs: number;
  callTimeoutMs: number;
  /** A server that is down is tried again after this, doubling up to retryMaxMs. */
  retryInitialMs: number;
  retryMaxMs: number;
  allowTools: string[];
  denyTools: string[];
  private: boolean;
  approval: Record<string, 'always' | 'never'>;
}

export interface McpLimits {
  maxDescriptionChars: number;
  maxSchemaChars: number;
  maxResultChars: number;
}

/** One tool a server offers, as listed (annotations kept for the approval decision). */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

/** The name the model sees: server and tool joined by `__` (the server name may not hold `__`). */
export function namespaced(server: string, tool: string): string {
  return `${server}__${tool}`;
}

export function serverOf(name: string): string | undefined {
  const i = name.indexOf('__');
  return i > 0 ? name.slice(0, i) : undefined;
}

/** Whether a call waits for a person: config first, else anything not declared read-only. */
export function needsApproval(spec: McpServerSpec, tool: McpToolInfo): boolean {
  const rule = spec.approval[tool.name];
  if (rule) return rule === 'always';
  return !tool.readOnly;
}

/** Text cut to `max` characters, saying that it was cut. */
export function capText(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, Math.max(0, max - 20))}… [cut at ${max} chars]`;
}
