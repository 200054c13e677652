// Books every chat model call's tokens (ARCHITECTURE.md, "Sharing the GPU"): the server's `usage`
// (vLLM sends it at the end of a stream when asked with stream_options.include_usage), else the
// local estimate of the prompt and the reply. Whom the call was for comes from its tag.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { ChatGeneration, LLMResult } from '@langchain/core/outputs';
import { currentModelCall, type ModelCallKind, type ModelCallTag } from '../scope/model-call.ts';
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

interface Started {
  tag: ModelCallTag;
  promptEstimate: number;
}

export class UsageMeter extends BaseCallbackHandler {
  name = 'threadmind-usage-meter';
  // Inline, so the call's tag (async context) is still there and nothing is booked late.
  override awaitHandlers = true;
  private readonly started = new Map<string, Started>();
  private readonly sink: UsageSink;
  private readonly model: string;

  constructor(model: string, sink: UsageSink) {
    super();
    this.model = model;
    this.sink = sink;
  }

  override handleChatModelStart(_llm: unknown, messages: BaseMessage[][], runId: string): void {
    const tag = currentModelCall();
    if (!tag) return;
    const promptEstimate = (messages[0] ?? []).reduce(
      (n, m) => n + estimateTextTokens(textOf(m)),
      0,
    );
    this.started.set(runId, { tag, promptEstimate });
  }

  override handleLLMError(_err: unknown, runId: string): void {
    this.started.delete(runId);
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const s = this.started.get(runId);
    if (!s) return;
    this.started.delete(runId);
    const gen = output.generations[0]?.[0] as ChatGeneration | undefined;
    const message = gen?.message as AIMessage | undefined;
    const usage = tokenCounts(message?.usage_metadata);
    const asksTools = (message?.tool_calls?.length ?? 0) > 0;
    const kind = s.tag.kind === 'answer' && asksTools ? 'tool_round' : s.tag.kind;
    if (usage && (usage.input_tokens > 0 || usage.output_tokens > 0)) {
      if (s.tag.spent) s.tag.spent.tokens += usage.input_tokens + usage.output_tokens;
      this.sink({
        ...{ tag: s.tag, kind, model: this.model, source: 'server' },
        ...{ prompt: usage.input_tokens, completion: usage.output_tokens },
      });
      return;
    }
    const reply = message ? textOf(message) + JSON.stringify(message.tool_calls ?? []) : '';
    const completion = estimateTextTokens(reply);
    if (s.tag.spent) s.tag.spent.tokens += s.promptEstimate + completion;
    this.sink({
      ...{ tag: s.tag, kind, model: this.model, source: 'estimate' },
      ...{ prompt: s.promptEstimate, completion },
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
