import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import type { AgentGraph, OnChunk } from './agent-graph.ts';

export interface TurnUsage {
  /** prompt_tokens of the last model call: what the context weighs now. */
  lastPromptTokens: number | undefined;
  /** prompt_tokens of the first model call: the prompt as the turn prepared it. */
  firstPromptTokens: number | undefined;
  inputTokens: number;
  outputTokens: number;
  modelCalls: number;
}

export interface AgentRunInput {
  graph: AgentGraph;
  system: string;
  messages: BaseMessage[];
  signal: AbortSignal;
  maxToolRounds: number;
  /** Tokens one request may use (window minus reply budget); the graph trims to fit. */
  windowBudget: number;
  /** The reply budget (max_tokens) each model call was given. */
  maxReplyTokens: number;
  /** Text as the model streams it. */
  onText(delta: string): void;
  /** Something happened (a chunk, a tool finishing): resets idle watchdogs. */
  onActivity?(phase: 'model' | 'tools'): void;
}

export interface AgentRunResult {
  /** Messages this turn added after the input (AI replies, tool calls and results). */
  added: BaseMessage[];
  /** The final answer's text. */
  text: string;
  /** The model stopped at the reply token limit, so the answer is incomplete. */
  truncated: boolean;
  usage: TurnUsage;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) =>
      typeof p === 'string'
        ? p
        : (p as { type?: string; text?: string }).type === 'text'
          ? ((p as { text?: string }).text ?? '')
          : '',
    )
    .join('');
}

/** Runs the graph once, streaming the answer's tokens and collecting what the turn added. */
export async function runAgent(input: AgentRunInput): Promise<AgentRunResult> {
  const usage: TurnUsage = {
    lastPromptTokens: undefined,
    firstPromptTokens: undefined,
    inputTokens: 0,
    outputTokens: 0,
    modelCalls: 0,
  };
  const added: BaseMessage[] = [];
  const onChunk: OnChunk = (chunk) => {
    input.onActivity?.('model');
    const delta = textOf(chunk.content);
    if (delta) input.onText(delta);
  };
  // The model node hands its chunks to `onChunk` itself (agent-graph.ts): LangGraph's `messages`
  // mode would hang a callback on every model call to get them. The input is a `Command` that
  // writes the messages and goes to the model: LangGraph applies it before the first step instead
  // of running its start node as a step of its own (ARCHITECTURE.md, "Turn cost").
  const stream = await input.graph.stream(
    new Command({ update: { messages: input.messages }, goto: 'model' }),
    {
      streamMode: 'updates',
      signal: input.signal,
      recursionLimit: input.maxToolRounds * 2 + 3,
      configurable: { system: input.system, windowBudget: input.windowBudget, onChunk },
    },
  );
  for await (const payload of stream as AsyncIterable<unknown>) {
    const update = payload as Record<string, { messages?: BaseMessage[] } | undefined>;
    for (const [node, value] of Object.entries(update)) {
      for (const m of value?.messages ?? []) {
        added.push(m);
        if (node === 'model' && AIMessage.isInstance(m)) {
          usage.modelCalls += 1;
          const u = (
            m as unknown as { usage_metadata?: { input_tokens: number; output_tokens: number } }
          ).usage_metadata;
          if (u) {
            usage.inputTokens += u.input_tokens;
            usage.outputTokens += u.output_tokens;
            usage.lastPromptTokens = u.input_tokens;
            usage.firstPromptTokens ??= u.input_tokens;
          }
        }
      }
      input.onActivity?.(node === 'tools' ? 'model' : 'tools');
    }
  }
  const last = added.at(-1);
  const isAnswer = last !== undefined && AIMessage.isInstance(last);
  const text = isAnswer ? textOf(last.content) : '';
  // Streamed chunks drop finish_reason, so a reply that used its whole budget counts as cut off.
  const outTokens = isAnswer
    ? (last as unknown as { usage_metadata?: { output_tokens: number } }).usage_metadata
        ?.output_tokens
    : undefined;
  const truncated =
    isAnswer &&
    (last.response_metadata?.finish_reason === 'length' ||
      (outTokens !== undefined && outTokens >= input.maxReplyTokens));
  return { added, text, truncated, usage };
}
