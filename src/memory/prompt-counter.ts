import type { BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { estimateTextTokens } from '../llm/token-estimate.ts';
import type { CountHint, PromptCount } from './context-manager.ts';
import { estimateMessages } from './fit-to-window.ts';

/** The offline estimate of a whole request: messages plus tool schemas. */
export async function estimatePromptTokens(
  messages: BaseMessage[],
  tools: StructuredToolInterface[],
  _hint: CountHint,
): Promise<PromptCount> {
  const schemas = tools.map((t) => `${t.name} ${t.description}`).join('\n');
  return {
    tokens: estimateMessages(messages) + estimateTextTokens(schemas) + tools.length * 30,
    source: 'payload_estimate',
  };
}
