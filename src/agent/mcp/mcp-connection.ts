// One MCP server: connects over Streamable HTTP or stdio, lists its tools (again on
// notifications/tools/list_changed and on every reconnect), calls them with the server's time-out.
// A server that is down at start, or goes away later, is retried with backoff (mcp-retry.ts). A
// server that is down or slow costs its own tools only: every failure is a tool error the model reads.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../log/logger.ts';
import { Reconnector, type RetryTimers } from './mcp-retry.ts';
import type { McpServerSpec, McpToolInfo } from './mcp-spec.ts';

/** What the model reads when a server did not answer (its own words are quoted as data). */
const t = {
  down: (s: string) =>
    `The ${s} tool server is not reachable right now (it is being retried); the call did not run. Tell the person, and do not retry it in this answer.`,
  lostDuringCall: (s: string) =>
    `The connection to the ${s} tool server failed during the call, so whether it ran is unknown; it is being reconnected. Tell the person, and do not retry it in this answer.`,
  timedOut: (s: string, ms: number) => `The ${s} tool server did not answer within ${ms} ms.`,
  failed: (s: string, message: string) => `The ${s} tool server failed: ${message}`.slice(0, 500),
  toolError: 'The tool reported an error.',
};

/** A failure's words: the server's (quoted as data for the model) or the bot's own (`ours`). */
export type CallOutcome = { ok: true; text: string } | { ok: false; error: string; ours?: true };

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
  #connectedOnce = false;
  #closed = false;
  #failing = false;
  #lastError: string | undefined;
  readonly #retry: Reconnector;

  readonly spec: McpServerSpec;
  private readonly log: Logger;
  private readonly onToolsChanged: () => void;

  constructor(spec: McpServerSpec, log: Logger, onToolsChanged: () => void, timers?: RetryTimers) {
    this.spec = spec;
    this.log = log;
    this.onToolsChanged = onToolsChanged;
    this.#retry = new Reconnector(
      { initialMs: spec.retryInitialMs, maxMs: spec.retryMaxMs, ...(timers ? { timers } : {}) },
      () => this.#connect(),
    );
  }

  get tools(): readonly McpToolInfo[] {
    return this.#tools;
  }

  /** Why the last attempt to connect failed (undefined: it did not). */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** Whether the server is connected now (else its calls get a clear tool error). */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /**
   * Connects and lists the tools. A server that is down is tried again with backoff (its tools
   * appear when it comes up); the process goes on meanwhile.
   */
  async start(): Promise<void> {
    if (!(await this.#connect())) this.#retry.schedule();
  }

  async #connect(): Promise<boolean> {
    if (this.#closed) return false;
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
      const listed = await client.listTools(undefined, { timeout: this.spec.connectTimeoutMs });
      if (this.#closed) {
        await client.close().catch(() => undefined);
        return false;
      }
      this.#client = client;
      // A stdio server that exits, or a transport that closes, is reconnected.
      client.onclose = () => {
        if (this.#client === client) this.#lost();
      };
      this.#setTools(listed.tools);
      this.log.info(
        { server: this.spec.name, tools: this.#tools.length },
        this.#connectedOnce ? 'mcp server reconnected' : 'mcp server connected',
      );
      this.#connectedOnce = true;
      this.#failing = false;
      this.#lastError = undefined;
      return true;
    } catch (err) {
      // Told once per outage; each further attempt only at debug.
      const first = !this.#failing;
      this.#failing = true;
      this.#lastError = err instanceof Error ? err.message : String(err);
      this.log[first ? 'warn' : 'debug'](
        { err, server: this.spec.name },
        'mcp server unavailable; its calls fail until it comes up (retrying)',
      );
      await client.close().catch(() => undefined);
      return false;
    }
  }

  /** The connection is gone: forget it and reconnect soon (its last tools stay offered). */
  #lost(): void {
    const c = this.#client;
    this.#client = undefined;
    if (c) {
      c.onclose = () => undefined;
      c.close().catch(() => undefined);
    }
    if (this.#closed) return;
    this.log.warn({ server: this.spec.name }, 'mcp server connection lost; reconnecting');
    this.#retry.schedule(true);
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
    if (!client) {
      this.#retry.schedule();
      return { ok: false, error: t.down(this.spec.name), ours: true };
    }
    try {
      const r = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.spec.callTimeoutMs,
        ...(signal ? { signal } : {}),
      });
      const text = resultText((r.content ?? []) as { type: string; text?: string }[]);
      return r.isError ? { ok: false, error: text || t.toolError } : { ok: true, text };
    } catch (err) {
      this.log.warn({ err, server: this.spec.name, tool }, 'mcp tool call failed');
      const code = err instanceof McpError ? err.code : undefined;
      if (signal?.aborted) return { ok: false, error: t.failed(this.spec.name, 'the turn ended') };
      if (code === ErrorCode.RequestTimeout)
        return {
          ok: false,
          error: t.timedOut(this.spec.name, this.spec.callTimeoutMs),
          ours: true,
        };
      if (code !== undefined && code !== ErrorCode.ConnectionClosed)
        return { ok: false, error: t.failed(this.spec.name, (err as Error).message) };
      // No answer at all (refused, reset, a session the server forgot): reconnect.
      if (this.#client === client) this.#lost();
      return { ok: false, error: t.lostDuringCall(this.spec.name), ours: true };
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#retry.close();
    const c = this.#client;
    this.#client = undefined;
    if (c) c.onclose = () => undefined;
    await c?.close().catch(() => undefined);
  }
}
