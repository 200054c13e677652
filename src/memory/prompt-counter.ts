// The whole request, counted by the fallback chain (vLLM /tokenize → local tokenizer → last usage
// → payload estimate → stored state), in the OpenAI chat form the server will actually see.
import type { BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { convertMessagesToCompletionsMessageParams } from '@langchain/openai';
import type { ModelEndpoint } from '../llm/model-endpoint.ts';
import {
  type ChatPayload,
  contentText,
  estimatePayloadTokens,
  serverRootOf,
  TokenCounter,
} from '../llm/token-count/index.ts';
import type { CountHint, PromptCount, PromptCounter } from './prompt-count.ts';

export function toChatPayload(
  messages: BaseMessage[],
  tools: StructuredToolInterface[],
  model: string,
): ChatPayload {
  const mapped = convertMessagesToCompletionsMessageParams({
    messages,
    model,
  }) as unknown as Record<string, unknown>[];
  return {
    messages: mapped.map((m) => ({
      role: String(m.role),
      content: contentText(m.content),
      ...(m.name ? { name: String(m.name) } : {}),
      ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
      ...(m.tool_call_id ? { tool_call_id: String(m.tool_call_id) } : {}),
    })),
    ...(tools.length ? { tools: tools.map(openAIToolOf) } : {}),
  };
}

/**
 * A tool's schema in the OpenAI form, converted once per tool: the registry hands the same tool
 * objects to every turn, and converting the zod schema each time was a visible part of a turn.
 * Callers must not modify the returned object.
 */
const openAITools = new WeakMap<StructuredToolInterface, ReturnType<typeof convertToOpenAITool>>();

function openAIToolOf(tool: StructuredToolInterface): ReturnType<typeof convertToOpenAITool> {
  let converted = openAITools.get(tool);
  if (!converted) {
    converted = convertToOpenAITool(tool);
    openAITools.set(tool, converted);
  }
  return converted;
}

/** The offline estimate of a whole request (step c of the chain), without any round trip. */
export async function estimatePromptTokens(
  messages: BaseMessage[],
  tools: StructuredToolInterface[],
  _hint: CountHint,
): Promise<PromptCount> {
  return {
    tokens: estimatePayloadTokens(toChatPayload(messages, tools, 'estimate')),
    source: 'payload_estimate',
  };
}

export interface ChainCounterOptions {
  endpoint: ModelEndpoint;
  apiKey?: string | undefined;
  timeoutMs: number;
}

/** A PromptCounter over the text endpoint, built once the served model is known. */
export function chainPromptCounter(o: ChainCounterOptions): PromptCounter {
  let counter: TokenCounter | undefined;
  return async (
    messages: BaseMessage[],
    tools: StructuredToolInterface[],
    hint: CountHint,
  ): Promise<PromptCount> => {
    const { info } = await o.endpoint.resolve();
    counter ??= new TokenCounter({
      serverRoot: serverRootOf(o.endpoint.baseUrl),
      model: info.id,
      apiKey: o.apiKey,
      timeoutMs: o.timeoutMs,
    });
    return counter.count(toChatPayload(messages, tools, info.id), hint);
  };
}
