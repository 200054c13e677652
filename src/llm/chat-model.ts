import type { MessageContent } from '@langchain/core/messages';
import { ChatOpenAICompletions } from '@langchain/openai';
import { estimateTextTokens } from './token-estimate.ts';

/**
 * Chat Completions against an OpenAI-compatible server (vLLM), never the Responses API.
 *
 * LangChain's default getNumTokens downloads tiktoken's encoding files from the internet whenever
 * something counts tokens — ChatOpenAI does so on every streamed call made through invoke(). On an
 * air-gapped GPU cluster that is a DNS failure or a hang per turn (DESIGN.md §4.8), so counting is
 * replaced by the local estimate.
 */
export class OfflineChatOpenAI extends ChatOpenAICompletions {
  override async getNumTokens(content: MessageContent): Promise<number> {
    if (typeof content === 'string') return estimateTextTokens(content);
    let total = 0;
    for (const part of content) {
      if (typeof part === 'string') total += estimateTextTokens(part);
      else if (part.type === 'text' && typeof part.text === 'string')
        total += estimateTextTokens(part.text);
    }
    return total;
  }
}

export interface ChatModelOptions {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  temperature: number;
  maxTokens: number;
  timeoutMs: number;
  maxRetries: number;
  streaming?: boolean;
}

export function createChatModel(o: ChatModelOptions): OfflineChatOpenAI {
  return new OfflineChatOpenAI({
    model: o.model,
    temperature: o.temperature,
    maxTokens: o.maxTokens,
    streaming: o.streaming ?? true,
    streamUsage: true,
    timeout: o.timeoutMs,
    maxRetries: o.maxRetries,
    // vLLM ignores the key unless started with --api-key; the SDK insists on one.
    apiKey: o.apiKey ?? 'not-needed',
    configuration: { baseURL: o.baseUrl },
  });
}
