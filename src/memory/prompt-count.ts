// What counting a prompt gives and takes; shared by the ContextManager and the counter it is handed
// (prompt-counter.ts), so neither imports the other for its types.
import type { BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';

export interface PromptCount {
  tokens: number;
  source: string;
}

export interface CountHint {
  lastPromptTokens?: number;
  /** How many messages (system prompt included) the prompt that got `lastPromptTokens` had. */
  lastPromptMessages?: number;
}

/** Counts a whole request (system prompt, messages, tool schemas) by the most exact means available. */
export type PromptCounter = (
  messages: BaseMessage[],
  tools: StructuredToolInterface[],
  hint: CountHint,
) => Promise<PromptCount>;
