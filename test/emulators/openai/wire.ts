// JSON shapes vLLM's OpenAI-compatible server puts on the wire (vllm/entrypoints/openai:
// ErrorResponse, ModelCard, ChatCompletionResponse, ChatCompletionStreamResponse), kept apart
// from the HTTP plumbing so the shapes can be read in one place.
import { randomBytes } from 'node:crypto';
import type { ModelSpec } from './types.ts';

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: number };
}

/** vLLM's create_error_response, in the nested form newer releases send. */
export function errorBody(
  message: string,
  type = 'BadRequestError',
  code = 400,
  param: string | null = null,
): ErrorBody {
  return { error: { message, type, param, code } };
}

export function modelNotFound(model: string): ErrorBody {
  return errorBody(`The model \`${model}\` does not exist.`, 'NotFoundError', 404, 'model');
}

/** The wording of the scripted context_length fault (vLLM's classic chat check). */
export function contextLengthMessage(maxLen: number, prompt: number, completion: number): string {
  return (
    `This model's maximum context length is ${maxLen} tokens. However, you requested ` +
    `${prompt + completion} tokens (${prompt} in the messages, ${completion} in the completion). ` +
    'Please reduce the length of the messages or completion.'
  );
}

/** Current vLLM's _validate_input, when the prompt alone does not fit. */
export function inputTooLongMessage(maxLen: number, prompt: number): string {
  return (
    `This model's maximum context length is ${maxLen} tokens. However, your request has ` +
    `${prompt} input tokens. Please reduce the length of the input messages.`
  );
}

/** Current vLLM's _validate_input, when prompt + max_tokens does not fit. */
export function maxTokensTooLargeMessage(
  maxTokens: number,
  maxLen: number,
  prompt: number,
): string {
  return (
    `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum ` +
    `context length is ${maxLen} tokens and your request has ${prompt} input tokens ` +
    `(${maxTokens} > ${maxLen} - ${prompt}).`
  );
}

export function modelList(models: ModelSpec[]): unknown {
  const created = Math.floor(Date.now() / 1000);
  return {
    object: 'list',
    data: models.map((m) => ({
      id: m.id,
      object: 'model',
      created,
      owned_by: 'vllm',
      root: m.id,
      parent: null,
      max_model_len: m.max_model_len,
      permission: [
        {
          id: `modelperm-${randomBytes(16).toString('hex')}`,
          object: 'model_permission',
          created,
          allow_create_engine: false,
          allow_sampling: true,
          allow_logprobs: true,
          allow_search_indices: false,
          allow_view: true,
          allow_fine_tuning: false,
          organization: '*',
          group: null,
          is_blocking: false,
        },
      ],
    })),
  };
}

export interface PlannedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A reply resolved against the request: what the model "generated". */
export interface Plan {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: PlannedToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** vLLM's make_tool_call_id default ("random"). */
export function toolCallId(): string {
  return `chatcmpl-tool-${randomBytes(16).toString('hex')}`;
}

export function completionBody(plan: Plan): unknown {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.content,
    refusal: null,
    annotations: null,
    audio: null,
    function_call: null,
    reasoning: null,
  };
  // vLLM drops an empty tool_calls list from the message.
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((tc) => ({
      id: tc.id,
      type: 'function',
      function: { name: tc.name, arguments: tc.arguments },
    }));
  }
  return {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.model,
    choices: [
      { index: 0, message, logprobs: null, finish_reason: plan.finishReason, stop_reason: null },
    ],
    service_tier: null,
    system_fingerprint: null,
    usage: { ...plan.usage, prompt_tokens_details: null },
    prompt_logprobs: null,
    kv_transfer_params: null,
  };
}

/** Cuts text into word-sized deltas (a long run without spaces, e.g. CJK, in 16-char slices). */
export function splitDeltas(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(/(?<=\s)(?=\S)/u)) {
    const chars = Array.from(word);
    for (let i = 0; i < chars.length; i += 16) out.push(chars.slice(i, i + 16).join(''));
  }
  return out.filter((s) => s.length > 0);
}

function argumentFragments(args: string): string[] {
  if (args.length < 2) return [args];
  const size = Math.ceil(args.length / 3);
  const out: string[] = [];
  for (let i = 0; i < args.length; i += size) out.push(args.slice(i, i + size));
  return out;
}

/**
 * The chunk objects of a streamed completion, in order, without the `[DONE]` sentinel.
 * Tool calls stream as vLLM's hermes parser does: a delta with index, id, type and the name,
 * then deltas carrying only argument fragments. Without `withRole` the opening delta is the
 * same empty text but carries no role, as some compatible servers send it.
 */
export function streamChunks(plan: Plan, includeUsage: boolean, withRole = true): unknown[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({
    id: plan.id,
    object: 'chat.completion.chunk',
    created: plan.created,
    model: plan.model,
    choices: [
      {
        index: 0,
        delta,
        logprobs: null,
        finish_reason: finish,
        ...(finish === null ? {} : { stop_reason: null }),
      },
    ],
  });
  const chunks: unknown[] = [
    chunk(withRole ? { role: 'assistant', content: '' } : { content: '' }),
  ];
  for (const piece of splitDeltas(plan.content ?? '')) chunks.push(chunk({ content: piece }));
  plan.toolCalls.forEach((tc, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, type: 'function', id: tc.id, function: { name: tc.name } }] }),
    );
    for (const fragment of argumentFragments(tc.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  chunks.push(chunk(plan.toolCalls.length > 0 ? {} : { content: '' }, plan.finishReason));
  if (includeUsage) {
    chunks.push({
      id: plan.id,
      object: 'chat.completion.chunk',
      created: plan.created,
      model: plan.model,
      choices: [],
      usage: plan.usage,
    });
  }
  return chunks;
}
