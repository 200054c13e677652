// Step (c) of the chain: an estimate of the whole request, not just the message text. Chat
// templates add tokens around every message, tool schemas ride in the system prompt, and tool
// calls are sent as JSON; each part is estimated with the calibrated per-script text estimate,
// with the model family's weights and template when the family is known.
import type { ModelFamily } from './local-tokenizer.ts';
import { estimateTextTokens } from './text-estimate.ts';
import type { ChatMessage, ChatPayload } from './types.ts';

/** Tokens a chat template adds around the text, measured with local-tokenizer.ts renderings. */
export interface TemplateOverheads {
  /** Per message: <|im_start|>role\n…<|im_end|>\n or <|start_header_id|>role…<|eot_id|>. */
  message: number;
  /** The assistant generation prompt (Llama 3 also has <|begin_of_text|>). */
  generation: number;
  /** Tool preamble: Qwen's "# Tools … <tools></tools>" against Llama 3's "Environment: ipython". */
  tools: number;
  /** <tool_call> wrapping per call (Qwen), a line break (Llama 3). */
  toolCall: number;
  /** <tool_response> wrapping per tool result (Qwen), the longer "ipython" role (Llama 3). */
  toolResult: number;
}

const QWEN_OVERHEADS: TemplateOverheads = {
  message: 5,
  generation: 3,
  tools: 82,
  toolCall: 4,
  toolResult: 4,
};
const LLAMA_OVERHEADS: TemplateOverheads = {
  message: 5,
  generation: 5,
  tools: 9,
  toolCall: 1,
  toolResult: 1,
};

// The mean of the two, for a model of unknown family (exported as before).
export const MESSAGE_OVERHEAD = 5;
export const GENERATION_OVERHEAD = 4;
export const TOOLS_OVERHEAD = 46;
export const TOOL_CALL_OVERHEAD = 2;
export const TOOL_RESULT_OVERHEAD = 2;
const MEAN_OVERHEADS: TemplateOverheads = {
  message: MESSAGE_OVERHEAD,
  generation: GENERATION_OVERHEAD,
  tools: TOOLS_OVERHEAD,
  toolCall: TOOL_CALL_OVERHEAD,
  toolResult: TOOL_RESULT_OVERHEAD,
};

/** The template overheads for a model family; 'other' and undefined get the mean of the two. */
export function templateOverheadsFor(family?: ModelFamily): TemplateOverheads {
  if (family === 'qwen') return QWEN_OVERHEADS;
  if (family === 'llama') return LLAMA_OVERHEADS;
  return MEAN_OVERHEADS;
}

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
export function estimateMessageTokens(m: ChatMessage, family?: ModelFamily): number {
  const o = templateOverheadsFor(family);
  let tokens = o.message + estimateTextTokens(contentText(m.content), family);
  for (const call of toolCallsText(m.tool_calls)) {
    tokens += estimateTextTokens(call, family) + o.toolCall;
  }
  if (m.role === 'tool') tokens += o.toolResult;
  return tokens;
}

export function estimateToolsTokens(
  tools: readonly unknown[] | undefined,
  family?: ModelFamily,
): number {
  if (!tools || tools.length === 0) return 0;
  let tokens = templateOverheadsFor(family).tools;
  for (const tool of tools) tokens += toolTokens(tool, family) + 1;
  return tokens;
}

/** Per tool schema object (the same objects come back every turn) and family. */
const toolEstimates = new WeakMap<object, Map<string, number>>();

function toolTokens(tool: unknown, family?: ModelFamily): number {
  if (tool === null || typeof tool !== 'object') {
    return estimateTextTokens(JSON.stringify(tool), family);
  }
  let byFamily = toolEstimates.get(tool);
  const key = family ?? 'other';
  const hit = byFamily?.get(key);
  if (hit !== undefined) return hit;
  const tokens = estimateTextTokens(JSON.stringify(tool), family);
  if (!byFamily) {
    byFamily = new Map();
    toolEstimates.set(tool, byFamily);
  }
  byFamily.set(key, tokens);
  return tokens;
}

/** Prompt tokens of a whole chat request: messages, template, tool calls and tool schemas. */
export function estimatePayloadTokens(payload: ChatPayload, family?: ModelFamily): number {
  let tokens = templateOverheadsFor(family).generation + estimateToolsTokens(payload.tools, family);
  for (const m of payload.messages) tokens += estimateMessageTokens(m, family);
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
