// Every declared MCP server, connected at start; the tools of the servers a channel switched on.
// The model sees only those (turn-prompt.ts asks `toolsFor`), rebuilt when a server's list changes.
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Logger } from '../../log/logger.ts';
import { McpConnection } from './mcp-connection.ts';
import { overviewOf, type ServerOverview } from './mcp-overview.ts';
import type { McpLimits, McpServerSpec } from './mcp-spec.ts';
import { mcpTool } from './mcp-tools.ts';

export interface McpHubOptions {
  servers: readonly McpServerSpec[];
  limits: McpLimits;
  log: Logger;
}

export class McpHub {
  readonly #connections = new Map<string, McpConnection>();
  readonly #tools = new Map<string, StructuredToolInterface[]>();
  readonly #o: McpHubOptions;

  constructor(o: McpHubOptions) {
    this.#o = o;
    for (const spec of o.servers) {
      const log = o.log.child({ mcp_server: spec.name });
      const c = new McpConnection(spec, log, () => this.#rebuild(c));
      this.#connections.set(spec.name, c);
    }
  }

  /** Connects every server at once; one that fails has no tools and the rest go on. */
  async start(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.start()));
  }

  get serverNames(): string[] {
    return [...this.#connections.keys()];
  }

  #rebuild(c: McpConnection): void {
    const made: StructuredToolInterface[] = [];
    for (const info of c.tools) {
      const t = mcpTool(
        {
          spec: c.spec,
          limits: this.#o.limits,
          call: (tool, args, signal) => c.call(tool, args, signal),
        },
        info,
      );
      if (t) made.push(t);
      else
        this.#o.log.warn(
          { mcp_server: c.spec.name, tool: info.name },
          'mcp tool schema over the cap; left out',
        );
    }
    this.#tools.set(c.spec.name, made);
  }

  /** The tools of these servers (names not declared are ignored). */
  toolsFor(servers: readonly string[]): StructuredToolInterface[] {
    return [...new Set(servers)].flatMap((s) => this.#tools.get(s) ?? []);
  }

  /** What an admin switching servers on is shown (mcp-overview.ts); undefined: not declared. */
  overview(server: string): ServerOverview | undefined {
    const c = this.#connections.get(server);
    return c ? overviewOf(c, this.#o.limits) : undefined;
  }

  /** Runs a call a person approved (or that needs none), outside the model's tool loop. */
  connection(server: string): McpConnection | undefined {
    return this.#connections.get(server);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.close()));
  }
}
