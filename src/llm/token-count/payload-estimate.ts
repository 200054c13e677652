// Step (c) of the chain: an estimate of the whole request, not just the message text. Chat
// templates add tokens around every message, tool schemas ride in the system prompt, and tool
// calls are sent as JSON; each part is estimated with the calibrated per-script text estimate.
import { estimateTextTokens } from './text-estimate.ts';
import type { ChatMessage, ChatPayload } from './types.ts';

// Template overheads, the mean of Qwen's ChatML and Llama 3's header format (measured with
// local-tokenizer.ts renderings): <|im_start|>role\n…<|im_end|>\n and
// <|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|> are both five tokens.
export const MESSAGE_OVERHEAD = 5;
/** The assistant generation prompt (Qwen 3, Llama 3 4 plus <|begin_of_text|>). */
export const GENERATION_OVERHEAD = 4;
/** Tool preamble: Qwen's "# Tools … <tools></tools>" (~83) against Llama 3's few tokens. */
export const TOOLS_OVERHEAD = 46;
/** <tool_call> wrapping per call, <tool_response> wrapping per tool result. */
export const TOOL_CALL_OVERHEAD = 2;
export const TOOL_RESULT_OVERHEAD = 2;

/** Message text; content arrays (multimodal parts) count their text parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part === 'string') return part;
      const text = (part as { text?: unknown } | null)?.text;
      return typeof text === 'string' ? text : '';
    })
    .join('');
}

function toolCallsText(toolCalls: unknown): string[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.map((tc: unknown) => {
    const fn = (tc as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    return JSON.stringify({ name: fn?.name, arguments: fn?.arguments });
  });
}

/** One message with its template framing, without the generation prompt. */
export function estimateMessageTokens(m: ChatMessage): number {
  let tokens = MESSAGE_OVERHEAD + estimateTextTokens(contentText(m.content));
  for (const call of toolCallsText(m.tool_calls)) {
    tokens += estimateTextTokens(call) + TOOL_CALL_OVERHEAD;
  }
  if (m.role === 'tool') tokens += TOOL_RESULT_OVERHEAD;
  return tokens;
}

export function estimateToolsTokens(tools: readonly unknown[] | undefined): number {
  if (!tools || tools.length === 0) return 0;
  let tokens = TOOLS_OVERHEAD;
  for (const tool of tools) tokens += estimateTextTokens(JSON.stringify(tool)) + 1;
  return tokens;
}

/** Prompt tokens of a whole chat request: messages, template, tool calls and tool schemas. */
export function estimatePayloadTokens(payload: ChatPayload): number {
  let tokens = GENERATION_OVERHEAD + estimateToolsTokens(payload.tools);
  for (const m of payload.messages) tokens += estimateMessageTokens(m);
  return tokens;
}

/** Characters of message text in a request: the unit of `CountHint.lastPayloadChars`. */
export function payloadChars(payload: ChatPayload): number {
  let chars = 0;
  for (const m of payload.messages) {
    chars += contentText(m.content).length;
    for (const call of toolCallsText(m.tool_calls)) chars += call.length;
  }
  for (const tool of payload.tools ?? []) chars += JSON.stringify(tool).length;
  return chars;
}
