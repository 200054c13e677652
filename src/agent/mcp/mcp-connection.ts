// One MCP server: connects over Streamable HTTP or stdio, lists its tools (again on
// notifications/tools/list_changed), calls them with the server's time-out. A server that is down
// or slow costs its own tools only: every failure is a tool error the model reads.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../log/logger.ts';
import type { McpServerSpec, McpToolInfo } from './mcp-spec.ts';

export type CallOutcome = { ok: true; text: string } | { ok: false; error: string };

function transportOf(spec: McpServerSpec): Transport {
  if (spec.url)
    return new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
    });
  if (!spec.command) throw new Error(`mcp server ${spec.name}: neither url nor command`);
  // Only the variables config/ names reach the command (plus PATH and the SDK's safe defaults).
  return new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: { ...getDefaultEnvironment(), ...spec.env },
    stderr: 'ignore',
  });
}

function allowed(spec: McpServerSpec, name: string): boolean {
  if (spec.denyTools.includes(name)) return false;
  return spec.allowTools.length === 0 || spec.allowTools.includes(name);
}

function infoOf(t: Tool): McpToolInfo {
  return {
    name: t.name,
    description: t.description ?? t.title ?? '',
    inputSchema: t.inputSchema as Record<string, unknown>,
    readOnly: t.annotations?.readOnlyHint === true,
  };
}

/** The text of a tool result: its text parts, other parts named (an image, a resource). */
export function resultText(content: readonly { type: string; text?: string }[]): string {
  return content
    .map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type} content not shown]`))
    .join('\n');
}

export class McpConnection {
  #client: Client | undefined;
  #tools: McpToolInfo[] = [];

  readonly spec: McpServerSpec;
  private readonly log: Logger;
  private readonly onToolsChanged: () => void;

  constructor(spec: McpServerSpec, log: Logger, onToolsChanged: () => void) {
    this.spec = spec;
    this.log = log;
    this.onToolsChanged = onToolsChanged;
  }

  get tools(): readonly McpToolInfo[] {
    return this.#tools;
  }

  /** Connects and lists the tools; a failure is logged and leaves this server without tools. */
  async start(): Promise<void> {
    const client = new Client(
      { name: 'threadmind', version: '1' },
      {
        listChanged: {
          tools: {
            onChanged: (err, tools) => {
              if (err) this.log.warn({ err, server: this.spec.name }, 'mcp tools refresh failed');
              else if (tools) this.#setTools(tools);
            },
          },
        },
      },
    );
    try {
      await client.connect(transportOf(this.spec), { timeout: this.spec.connectTimeoutMs });
      this.#client = client;
      const listed = await client.listTools(undefined, { timeout: this.spec.connectTimeoutMs });
      this.#setTools(listed.tools);
      this.log.info({ server: this.spec.name, tools: this.#tools.length }, 'mcp server connected');
    } catch (err) {
      this.log.warn({ err, server: this.spec.name }, 'mcp server unavailable; its tools are off');
      await client.close().catch(() => undefined);
    }
  }

  #setTools(tools: readonly Tool[]): void {
    this.#tools = tools.filter((t) => allowed(this.spec, t.name)).map(infoOf);
    this.onToolsChanged();
  }

  async call(
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<CallOutcome> {
    const client = this.#client;
    if (!client) return { ok: false, error: `The ${this.spec.name} tool server is not available.` };
    try {
      const r = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.spec.callTimeoutMs,
        ...(signal ? { signal } : {}),
      });
      const text = resultText((r.content ?? []) as { type: string; text?: string }[]);
      return r.isError
        ? { ok: false, error: text || 'The tool reported an error.' }
        : { ok: true, text };
    } catch (err) {
      this.log.warn({ err, server: this.spec.name, tool }, 'mcp tool call failed');
      const timedOut = (err as { code?: number }).code === -32001;
      return {
        ok: false,
        error: timedOut
          ? `The ${this.spec.name} tool server did not answer within ${this.spec.callTimeoutMs} ms.`
          : `The ${this.spec.name} tool server failed: ${(err as Error).message}`.slice(0, 500),
      };
    }
  }

  async close(): Promise<void> {
    await this.#client?.close().catch(() => undefined);
    this.#client = undefined;
  }
}
