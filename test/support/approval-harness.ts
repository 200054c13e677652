// The harness for approval tests: a real MCP server (test/support/mcp-test-server.ts) started
// first, so the harness's options can name its URL, and the model told not to retry (a scripted
// reply is used once). Core events are watched for the test to wait on.
import type { CoreWatch } from '../contract/flow-driver.ts';
import { type Harness, type HarnessOptions, startHarness } from './harness.ts';
import { type HttpTestServer, startHttpTestServer } from './mcp-test-server.ts';

export interface ApprovalHarness {
  readonly h: Harness;
  readonly server: HttpTestServer;
  /** Stops the harness, then the MCP server. */
  close(): Promise<void>;
}

export async function startApprovalHarness(
  watch: CoreWatch,
  options: (mcpUrl: string) => HarnessOptions,
): Promise<ApprovalHarness> {
  const server = await startHttpTestServer();
  let h: Harness | undefined;
  try {
    const o = options(server.url);
    h = await startHarness({ ...o, overrides: { llm: { maxRetries: 0 }, ...o.overrides } });
    watch.watch(h.app.core);
    const harness = h;
    return {
      h,
      server,
      async close() {
        await harness.close();
        await server.close();
      },
    };
  } catch (err) {
    await h?.close();
    await server.close();
    throw err;
  }
}
