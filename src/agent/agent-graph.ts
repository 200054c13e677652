import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  type AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  SystemMessage,
} from '@langchain/core/messages';
import type { Runnable, RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { fitToWindow } from '../memory/fit-to-window.ts';

export const AgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** Model ↔ tool round trips so far in this turn. */
  rounds: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

export interface GraphOptions {
  model: BaseChatModel;
  tools: StructuredToolInterface[];
  maxToolRounds: number;
}

function hasToolCalls(m: BaseMessage | undefined): boolean {
  return ((m as AIMessage | undefined)?.tool_calls?.length ?? 0) > 0;
}

/** What the caller is handed for each streamed chunk of a model reply (`configurable.onChunk`). */
export type OnChunk = (chunk: AIMessageChunk) => void;

/**
 * Streams one reply, handing each chunk to `configurable.onChunk` (run-agent.ts), and returns the
 * whole reply. The chunks come from `_streamIterator`, what `stream()` runs without wrapping it in
 * a web stream that switches LangChain's context per chunk, and reach the caller directly rather
 * than through the graph's own stream (two more web streams per chunk); no callback is involved,
 * so with tracing off LangChain builds no callback manager, run ids or runs for the call
 * (ARCHITECTURE.md, "Turn cost").
 */
async function streamReply(
  model: Runnable<BaseLanguageModelInput, AIMessageChunk>,
  messages: BaseMessage[],
  config: RunnableConfig,
): Promise<AIMessageChunk> {
  const onChunk = config.configurable?.onChunk as OnChunk | undefined;
  let reply: AIMessageChunk | undefined;
  for await (const chunk of model._streamIterator(messages, config)) {
    onChunk?.(chunk);
    reply = reply === undefined ? chunk : reply.concat(chunk);
  }
  if (reply === undefined) throw new Error('the model sent an empty reply');
  return reply;
}

/**
 * model → (tools → model)* → end. On the last allowed round the model is called without tools, so
 * a turn always ends with an answer instead of a recursion error.
 */
export function buildAgentGraph(o: GraphOptions) {
  const withTools = o.tools.length > 0 && o.model.bindTools ? o.model.bindTools(o.tools) : o.model;
  const callModel = async (state: typeof AgentState.State, config: RunnableConfig) => {
    const system = String(config.configurable?.system ?? '');
    const budget = Number(config.configurable?.windowBudget ?? Number.POSITIVE_INFINITY);
    const model = state.rounds >= o.maxToolRounds ? o.model : withTools;
    // The final guard, on every request of the turn: tool results can outgrow the window too.
    const { messages } = fitToWindow([new SystemMessage(system), ...state.messages], budget);
    return { messages: [await streamReply(model, messages, config)] };
  };
  const toolNode = o.tools.length > 0 ? new ToolNode(o.tools, { handleToolErrors: true }) : null;
  const runTools = async (state: typeof AgentState.State, config: RunnableConfig) => {
    if (!toolNode) return {};
    const out = (await toolNode.invoke(state, config)) as { messages: BaseMessage[] };
    return { messages: out.messages, rounds: 1 };
  };
  return new StateGraph(AgentState)
    .addNode('model', callModel)
    .addNode('tools', runTools)
    .addEdge(START, 'model')
    .addConditionalEdges('model', (s) => (hasToolCalls(s.messages.at(-1)) ? 'tools' : END), [
      'tools',
      END,
    ])
    .addEdge('tools', 'model')
    .compile();
}

export type AgentGraph = ReturnType<typeof buildAgentGraph>;
