// Prompt assembly for an answer: the stored history, the model the channel chose, the tools it
// allows, the system prompt with the files' and the channel's sections, the asker's message with
// the thread's unread messages quoted, and the scope the tools read.
import type { BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { systemPrompt } from '../agent/prompts.ts';
import type { ToolRegistry } from '../agent/tool-registry.ts';
import type { ResolvedModel } from '../llm/model-endpoint.ts';
import { fitQuoted, humanTurn } from '../memory/thread-messages.ts';
import type { IncomingMessage } from '../model/incoming.ts';
import { ownersOf } from '../model/thread-ref.ts';
import type { TurnScope } from '../scope/scope.ts';
import { type ChannelSettings, TOOL_GROUP_OF } from './channel-settings.ts';
import { namesIn } from './channel-settings-schema.ts';
import type { CaughtUp } from './thread-context.ts';
import type { McpTools, TurnContext, TurnEnv, TurnInput } from './turn-types.ts';

/** Share of the window the quoted thread messages of one turn may fill (in characters, ~3 a token). */
const QUOTED_WINDOW_SHARE = 0.4;
const CHARS_PER_TOKEN = 3;

/**
 * The last `max` messages, starting at a person's message: a window that opened on a tool result
 * or a tool call would be rejected by the server (a tool message must follow its call).
 */
export function recentHistory(history: BaseMessage[], max: number): BaseMessage[] {
  let start = Math.max(0, history.length - max);
  while (start < history.length && history[start]?.type !== 'human') start++;
  return history.slice(start);
}

/** The tools a channel allows (all built-in ones without settings; MCP servers only when named). */
export function toolsFor(
  registry: ToolRegistry,
  settings: ChannelSettings | undefined,
  mcp?: McpTools,
): StructuredToolInterface[] {
  const all = registry.list();
  // Without settings, the web stays off as in the defaults.
  if (!settings) return all.filter((t) => TOOL_GROUP_OF[t.name] !== 'web');
  const builtIn = all.filter((t) => {
    const group = TOOL_GROUP_OF[t.name];
    return group === undefined || settings.tools[group];
  });
  return mcp ? [...builtIn, ...mcp.toolsFor(namesIn(settings.mcpServers))] : builtIn;
}

export interface TurnPrompt {
  /** The session's history as stored before this turn. */
  stored: BaseMessage[];
  model: ResolvedModel;
  tools: StructuredToolInterface[];
  system: string;
  scope: TurnScope;
  /** The asker's message, quoting what the read found (fitted to a share of the window). */
  turnOf(caught: CaughtUp): HumanMessage;
}

/** Everything of the prompt but the thread's read, which may still be running beside it. */
export async function assemblePrompt(
  { o, d }: TurnEnv,
  msg: IncomingMessage,
  key: string,
  input: TurnInput,
): Promise<TurnPrompt> {
  const owners = ownersOf(msg.ref);
  const settings = input.settings;
  const tools = toolsFor(d.tools, settings, d.mcp);
  const [stored, model, context] = await Promise.all([
    d.history.load(key),
    d.llm.resolve(settings?.model),
    d.context ? d.context(owners) : Promise.resolve<TurnContext>({ images: [] }),
  ]);
  const window = d.memory.window(model.info.maxModelLen);
  const turnOf = (c: CaughtUp) => {
    const askerName = c.askerName ?? input.askerName;
    return humanTurn({
      ...fitQuoted(c.quoted, window * QUOTED_WINDOW_SHARE * CHARS_PER_TOKEN),
      askerId: msg.principal,
      ...(askerName ? { askerName } : {}),
      messageId: msg.messageId,
      text: msg.text,
    });
  };
  const sections = [
    ...(context.section ? [context.section] : []),
    ...(settings?.instructions
      ? [`Instructions for this channel, set by its admins:\n${settings.instructions}`]
      : []),
  ];
  const system = systemPrompt({
    botName: o.botName,
    platform: msg.ref.platform,
    now: (d.now ?? (() => new Date()))(),
    ...(sections.length > 0 ? { sections } : {}),
  });
  const audience = input.audience;
  const scope: TurnScope = {
    ref: msg.ref,
    principal: msg.principal,
    owners,
    images: context.images,
    traceId: msg.traceId,
    onEvidence: audience ? (e) => audience.admit(e) : undefined,
    onPrivateResult: audience ? () => audience.restrict() : undefined,
    toolGate: input.toolGate,
  };
  return { stored, model, tools, system, scope, turnOf };
}
