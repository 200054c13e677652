// A server's tools as the admin who switches it on for a channel reads them: each tool's
// namespaced name, its description (cut like the model's, on one line), its arguments summarised
// from the input schema, and whether its calls wait for an approval. Plain data: the core words it
// and renders it neutralised (channel settings, settings-flow.ts).
import type { McpConnection } from './mcp-connection.ts';
import { capText, type McpLimits, namespaced, needsApproval } from './mcp-spec.ts';
import { cappedSchema } from './mcp-tools.ts';

export interface ToolOverview {
  name: string;
  description: string;
  /** `project: string (required), limit: number`; empty: no arguments. */
  args: string;
  needsApproval: boolean;
  /** Over `maxSchemaChars`: the model is not offered it. */
  leftOut: boolean;
}

export interface ServerOverview {
  name: string;
  connected: boolean;
  private: boolean;
  tools: ToolOverview[];
}

const ARGS_MAX = 200;

function typeOf(p: unknown): string {
  if (typeof p !== 'object' || p === null) return 'any';
  const o = p as { type?: unknown; enum?: unknown; anyOf?: unknown };
  if (Array.isArray(o.enum)) return `one of ${o.enum.map((v) => JSON.stringify(v)).join('|')}`;
  if (typeof o.type === 'string') return o.type;
  if (Array.isArray(o.type)) return o.type.join('|');
  return Array.isArray(o.anyOf) ? 'any of several' : 'any';
}

/** The arguments of an input schema in words: name, type, whether required. */
export function summariseSchema(schema: Record<string, unknown>): string {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const parts = Object.entries(props).map(
    ([k, v]) => `${k}: ${typeOf(v)}${required.has(k) ? ' (required)' : ''}`,
  );
  return capText(parts.join(', '), ARGS_MAX);
}

/** One line of a server's own words: whitespace collapsed, cut. */
function oneLine(text: string, max: number): string {
  return capText(text.replace(/\s+/g, ' ').trim(), max);
}

export function overviewOf(c: McpConnection, limits: McpLimits): ServerOverview {
  return {
    name: c.spec.name,
    connected: c.connected,
    private: c.spec.private,
    tools: c.tools.map((t) => ({
      name: namespaced(c.spec.name, t.name),
      description: oneLine(t.description, limits.maxDescriptionChars),
      args: summariseSchema(t.inputSchema),
      needsApproval: needsApproval(c.spec, t),
      leftOut: cappedSchema(t.inputSchema, limits) === undefined,
    })),
  };
}
