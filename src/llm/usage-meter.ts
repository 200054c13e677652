// Books every chat model call's tokens (ARCHITECTURE.md, "Sharing the GPU"): the server's `usage`
// (vLLM sends it at the end of a stream when asked with stream_options.include_usage), else the
// local estimate of the prompt and the reply. Whom the call was for comes from its tag.
//
// The chat model calls `book` with the finished reply (OfflineChatOpenAI, chat-model.ts) rather
// than the meter being a LangChain callback: a callback makes every model call build a callback
// manager, a run id and a run per call, and the streamed reply's last chunk already carries the
// counts (ARCHITECTURE.md, "Turn cost").
import {
  type AIMessage,
  type BaseMessage,
  type BaseMessageLike,
  coerceMessageLikeToMessage,
} from '@langchain/core/messages';
import type { ModelCallKind, ModelCallTag } from '../scope/model-call.ts';
import { estimateTextTokens } from './token-count/text-estimate.ts';

export interface UsageBooking {
  tag: ModelCallTag;
  kind: ModelCallKind;
  model: string;
  prompt: number;
  completion: number;
  /** Where the figures come from. */
  source: 'server' | 'estimate';
}

/** Takes a booking; must not throw or wait (the meter runs inside the model call). */
export type UsageSink = (b: UsageBooking) => void;

function textOf(m: BaseMessage): string {
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/** What the reply said about itself: the server's counts and whether it only asks for tools. */
export interface ReplyFacts {
  usage: { input_tokens?: unknown; output_tokens?: unknown } | undefined;
  asksTools: boolean;
  /** The reply's text and tool calls, for the estimate (asked only when the server sent no counts). */
  text(): string;
}

export function replyFacts(message: BaseMessage | undefined): ReplyFacts {
  const m = message as AIMessage | undefined;
  return {
    usage: m?.usage_metadata,
    asksTools: (m?.tool_calls?.length ?? 0) > 0,
    text: () => (m ? textOf(m) + JSON.stringify(m.tool_calls ?? []) : ''),
  };
}

/** The prompt as messages, from whatever a chat model was given. */
function promptOf(input: unknown): BaseMessage[] {
  if (typeof input === 'string') return [coerceMessageLikeToMessage(input)];
  if (Array.isArray(input))
    return input.map((m) => coerceMessageLikeToMessage(m as BaseMessageLike));
  const value = input as { toChatMessages?: () => BaseMessage[] } | undefined;
  return value?.toChatMessages?.() ?? [];
}

export class UsageMeter {
  private readonly sink: UsageSink;
  private readonly model: string;

  constructor(model: string, sink: UsageSink) {
    this.model = model;
    this.sink = sink;
  }

  /** One finished call: `prompt` is what the model was given (messages, a string, a prompt value). */
  book(tag: ModelCallTag | undefined, prompt: unknown, reply: ReplyFacts): void {
    if (!tag) return;
    const kind = tag.kind === 'answer' && reply.asksTools ? 'tool_round' : tag.kind;
    const usage = tokenCounts(reply.usage);
    if (usage && (usage.input_tokens > 0 || usage.output_tokens > 0)) {
      if (tag.spent) tag.spent.tokens += usage.input_tokens + usage.output_tokens;
      this.sink({
        ...{ tag, kind, model: this.model, source: 'server' },
        ...{ prompt: usage.input_tokens, completion: usage.output_tokens },
      });
      return;
    }
    const promptEstimate = promptOf(prompt).reduce((n, m) => n + estimateTextTokens(textOf(m)), 0);
    const completion = estimateTextTokens(reply.text());
    if (tag.spent) tag.spent.tokens += promptEstimate + completion;
    this.sink({
      ...{ tag, kind, model: this.model, source: 'estimate' },
      ...{ prompt: promptEstimate, completion },
    });
  }
}

/** The server's counts, each a finite number (a reply with no text may leave one out). */
function tokenCounts(
  u: { input_tokens?: unknown; output_tokens?: unknown } | undefined,
): { input_tokens: number; output_tokens: number } | undefined {
  if (!u) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  return { input_tokens: n(u.input_tokens), output_tokens: n(u.output_tokens) };
}
