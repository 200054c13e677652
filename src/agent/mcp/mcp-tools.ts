// MCP tools as the model sees them: namespaced (`server__tool`), their descriptions and schemas
// capped, each call asking the turn's gate first (approval, src/core/tool-approvals.ts) and reading who
// asks from the turn scope, never from the arguments.
import { DynamicStructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import { currentScope, NO_SCOPE_MESSAGE } from '../../scope/scope.ts';
import { dataBlock } from '../../text/data-block.ts';
import type { CallOutcome } from './mcp-connection.ts';
import {
  capText as cap,
  type McpLimits,
  type McpServerSpec,
  type McpToolInfo,
  namespaced,
  needsApproval,
} from './mcp-spec.ts';

/** A tool error the model reads (LangGraph's ToolNode turns the throw into a tool message). */
export class McpToolError extends Error {}

/** Without a gate (a turn outside a conversation) nothing that needs approval runs. */
const NO_APPROVER =
  'This tool needs a person to approve each call, and nobody can here: it did not run.';

const EMPTY_SCHEMA = { type: 'object', properties: {} } as const;

/** The schema, or undefined when it is over the cap (the tool is then left out, and logged). */
export function cappedSchema(
  schema: Record<string, unknown>,
  limits: McpLimits,
): Record<string, unknown> | undefined {
  const s = schema.type === 'object' ? schema : EMPTY_SCHEMA;
  return JSON.stringify(s).length <= limits.maxSchemaChars ? s : undefined;
}

export interface McpToolDeps {
  spec: McpServerSpec;
  limits: McpLimits;
  call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallOutcome>;
}

export function mcpTool(d: McpToolDeps, info: McpToolInfo): StructuredToolInterface | undefined {
  const schema = cappedSchema(info.inputSchema, d.limits);
  if (!schema) return undefined;
  const name = namespaced(d.spec.name, info.name);
  const description = cap(
    `${info.description || info.name} (team tool on the ${d.spec.name} server${
      needsApproval(d.spec, info) ? '; each call waits for a person to approve it' : ''
    })`,
    d.limits.maxDescriptionChars,
  );
  return new DynamicStructuredTool({
    name,
    description,
    schema,
    // The artifact marks a private server's result, so history does not keep it (tool-output-cleanup).
    responseFormat: 'content_and_artifact',
    func: async (args: Record<string, unknown>, _run, config) => {
      const scope = currentScope();
      if (!scope) return [NO_SCOPE_MESSAGE, {}];
      const call = {
        server: d.spec.name,
        tool: info.name,
        name,
        args,
        needsApproval: needsApproval(d.spec, info),
      };
      const decision = scope.toolGate
        ? await scope.toolGate(call)
        : call.needsApproval
          ? { run: false as const, message: NO_APPROVER }
          : { run: true as const };
      if (!decision.run) return [decision.message, {}];
      const out = await d.call(info.name, args, config?.signal);
      // A server's words are data, never instructions (errors too: they are its text).
      if (!out.ok)
        throw new McpToolError(
          out.ours ? out.error : dataBlock(name, cap(out.error, d.limits.maxResultChars)),
        );
      // An answer that used a private server's results goes to the asker alone ("Audience").
      if (d.spec.private) await scope.onPrivateResult?.();
      return [
        dataBlock(name, cap(out.text, d.limits.maxResultChars)),
        { privateResult: d.spec.private },
      ];
    },
  });
}
