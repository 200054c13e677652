// The team's MCP servers (mcp.servers): each one connected as the bot does, its tools listed, and
// the connection closed again. Present only when servers are declared. A server that cannot be
// reached is ✗: every call to its tools would fail (the bot itself runs on and keeps retrying).
import { McpConnection } from '../agent/mcp/mcp-connection.ts';
import { type McpServerSpec, needsApproval } from '../agent/mcp/mcp-spec.ts';
import { silentLogger } from '../log/logger.ts';
import type { CheckContext, CheckGroup, CheckResult } from '../model/check-result.ts';

async function serverResult(spec: McpServerSpec, ctx: CheckContext): Promise<CheckResult> {
  const name = `mcp.${spec.name}`;
  const timeout = Math.min(spec.connectTimeoutMs, ctx.stepTimeoutMs);
  const c = new McpConnection({ ...spec, connectTimeoutMs: timeout }, silentLogger(), () => {});
  try {
    await c.start();
    if (!c.connected)
      return {
        name,
        status: 'fail',
        summary: `${spec.url ?? spec.command} did not answer: ${c.lastError ?? 'unknown reason'}`,
        fix: spec.url
          ? 'Check the URL and its headersFromEnv secrets (a 401 means the token is wrong), and that the server speaks Streamable HTTP.'
          : 'Check that the command exists here and starts an MCP server on stdio, with the variables envFromEnv names.',
      };
    const asking = c.tools.filter((t) => needsApproval(spec, t)).length;
    return {
      name,
      status: c.tools.length > 0 ? 'ok' : 'warn',
      summary:
        c.tools.length > 0
          ? `${c.tools.length} tools (${asking} ask for approval)`
          : 'connected, but it offers no tools (after allowTools/denyTools)',
      ...(c.tools.length > 0
        ? {}
        : { fix: 'Check allowTools and denyTools against its tool names.' }),
    };
  } finally {
    await c.close();
  }
}

export function mcpCheckGroups(servers: readonly McpServerSpec[]): CheckGroup[] {
  return servers.map((spec) => ({
    names: [`mcp.${spec.name}`],
    async run(ctx, report) {
      report(await serverResult(spec, ctx));
    },
  }));
}
