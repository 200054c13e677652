import type { BaseMessage, BaseMessageChunk, MessageContent } from '@langchain/core/messages';
import { ChatOpenAICompletions, type OpenAIClient } from '@langchain/openai';
import { type GpuShareOptions, gpuShareFetch } from './gpu-share.ts';
import { estimateTextTokens } from './token-estimate.ts';
import { UsageMeter, type UsageSink } from './usage-meter.ts';

type Role = OpenAIClient.Chat.ChatCompletionRole;

const ROLES: ReadonlySet<string> = new Set<Role>([
  'developer',
  'system',
  'user',
  'assistant',
  'tool',
  'function',
]);

/** A role LangChain maps to its own message class; anything else would become a ChatMessage. */
function hasRole(role: unknown): role is Role {
  return typeof role === 'string' && ROLES.has(role);
}

/**
 * Chat Completions against an OpenAI-compatible server (vLLM), never the Responses API.
 *
 * LangChain's default getNumTokens downloads tiktoken's encoding files from the internet whenever
 * something counts tokens — ChatOpenAI does so on every streamed call made through invoke(). On an
 * air-gapped GPU cluster that is a DNS failure or a hang per turn (ARCHITECTURE.md, "Invariants" 5), so counting is
 * replaced by the local estimate.
 */
export class OfflineChatOpenAI extends ChatOpenAICompletions {
  /**
   * A completion is the assistant speaking, whether or not the server says so. LangChain takes a
   * chunk's role from `delta.role`, else from an earlier delta's; with neither (or an unknown
   * role) it builds a ChatMessageChunk: not an AI message, so its text never reaches the user, its
   * tool calls are dropped, and stored without a role it cannot be read back. vLLM and OpenAI name
   * the role in the first delta only; some compatible servers never do.
   */
  protected override _convertCompletionsDeltaToBaseMessageChunk(
    // biome-ignore lint/suspicious/noExplicitAny: the parent's signature
    delta: Record<string, any>,
    rawResponse: OpenAIClient.Chat.Completions.ChatCompletionChunk,
    defaultRole?: Role,
  ): BaseMessageChunk {
    const role = hasRole(delta.role)
      ? delta.role
      : hasRole(defaultRole)
        ? defaultRole
        : 'assistant';
    return super._convertCompletionsDeltaToBaseMessageChunk({ ...delta, role }, rawResponse, role);
  }

  /** The same for a whole (non-streamed) message, whose tool calls would otherwise be lost. */
  protected override _convertCompletionsMessageToBaseMessage(
    message: OpenAIClient.ChatCompletionMessage,
    rawResponse: OpenAIClient.ChatCompletion,
  ): BaseMessage {
    const fixed = hasRole(message.role) ? message : { ...message, role: 'assistant' as const };
    return super._convertCompletionsMessageToBaseMessage(fixed, rawResponse);
  }

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
  /** vLLM's priority and cache_salt per call (ARCHITECTURE.md, "Sharing the GPU"). */
  share?: GpuShareOptions | undefined;
  /** Where each call's tokens are booked. */
  usage?: UsageSink | undefined;
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
    configuration: {
      baseURL: o.baseUrl,
      ...(o.share ? { fetch: gpuShareFetch(o.share) } : {}),
    },
    ...(o.usage ? { callbacks: [new UsageMeter(o.model, o.usage)] } : {}),
  });
}
