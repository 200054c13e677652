import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type {
  AIMessageChunk,
  BaseMessage,
  BaseMessageChunk,
  BaseMessageLike,
  MessageContent,
} from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import {
  type ChatOpenAICallOptions,
  ChatOpenAICompletions,
  type OpenAIClient,
} from '@langchain/openai';
import { currentModelCall } from '../scope/model-call.ts';
import { type GpuShareOptions, gpuShareFetch } from './gpu-share.ts';
import { estimateTextTokens } from './token-estimate.ts';
import { replyFacts, UsageMeter, type UsageSink } from './usage-meter.ts';

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
  /** Books each finished call's tokens (usage-meter.ts); unset, nothing is booked. */
  meter: UsageMeter | undefined;

  /** A call through invoke or batch: booked from its result. */
  override async generate(
    messages: BaseMessageLike[][],
    options?: string[] | Partial<ChatOpenAICallOptions>,
    callbacks?: Callbacks,
  ): Promise<LLMResult> {
    const tag = this.meter ? currentModelCall() : undefined;
    const result = await super.generate(messages, options, callbacks);
    if (tag)
      messages.forEach((prompt, i) => {
        this.meter?.book(tag, prompt, replyFacts(messageOf(result, i)));
      });
    return result;
  }

  /**
   * A call through stream: booked from its chunks once the stream has ended (the server's counts
   * come in the last one). One that fails or is left early is not booked, as before. With
   * streaming disabled LangChain answers a stream through invoke, which books it.
   */
  override async *_streamIterator(
    input: BaseLanguageModelInput,
    options?: Partial<ChatOpenAICallOptions>,
  ): AsyncGenerator<AIMessageChunk> {
    const tag = this.meter && !this.disableStreaming ? currentModelCall() : undefined;
    if (!tag) {
      yield* super._streamIterator(input, options);
      return;
    }
    const seen = new StreamedReply();
    for await (const chunk of super._streamIterator(input, options)) {
      seen.add(chunk);
      yield chunk;
    }
    this.meter?.book(tag, input, seen.facts());
  }

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
  const chat = new OfflineChatOpenAI({
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
  });
  if (o.usage) chat.meter = new UsageMeter(o.model, o.usage);
  return chat;
}

function messageOf(result: LLMResult, i: number): BaseMessage | undefined {
  return (result.generations[i]?.[0] as { message?: BaseMessage } | undefined)?.message;
}

/** What a streamed reply said, gathered chunk by chunk without merging the chunks. */
class StreamedReply {
  private input = 0;
  private output = 0;
  private counted = false;
  private readonly parts: string[] = [];
  private readonly tools: unknown[] = [];

  add(chunk: AIMessageChunk): void {
    const u = (
      chunk as unknown as { usage_metadata?: { input_tokens: number; output_tokens: number } }
    ).usage_metadata;
    if (u) {
      this.counted = true;
      this.input += u.input_tokens;
      this.output += u.output_tokens;
    }
    if (typeof chunk.content === 'string') this.parts.push(chunk.content);
    else this.parts.push(JSON.stringify(chunk.content));
    for (const t of chunk.tool_call_chunks ?? []) this.tools.push(t);
  }

  facts() {
    return {
      usage: this.counted ? { input_tokens: this.input, output_tokens: this.output } : undefined,
      asksTools: this.tools.length > 0,
      text: () => this.parts.join('') + JSON.stringify(this.tools),
    };
  }
}
