// The OpenAI-compatible wire format of the embedded server, shaped like vLLM's (requests it accepts,
// answers and error bodies), so the rest of the bot and curl see the same thing as with vLLM.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({ type: z.literal('image_url') }).passthrough();
const content = z.union([z.string(), z.array(z.union([textPart, imagePart]))]);

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

export const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content }),
  z.object({ role: z.literal('developer'), content }),
  z.object({ role: z.literal('user'), content }),
  z.object({
    role: z.literal('assistant'),
    content: content.nullish(),
    tool_calls: z.array(toolCall).nullish(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content }),
]);
export type WireMessage = z.infer<typeof messageSchema>;

export const toolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'a function name is letters, digits, _ or -'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type WireTool = z.infer<typeof toolSchema>;

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
]);
export type WireToolChoice = z.infer<typeof toolChoice>;

export const chatRequestSchema = z.object({
  model: z.string().optional(),
  messages: z.array(messageSchema).min(1),
  tools: z.array(toolSchema).nullish(),
  tool_choice: toolChoice.nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.number().int().nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  n: z.literal(1).nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

export const tokenizeRequestSchema = z.union([
  z.object({
    model: z.string().optional(),
    prompt: z.string(),
    add_special_tokens: z.boolean().optional(),
  }),
  z.object({
    model: z.string().optional(),
    messages: z.array(messageSchema).min(1),
    tools: z.array(toolSchema).nullish(),
    add_generation_prompt: z.boolean().optional(),
  }),
]);
export type TokenizeRequest = z.infer<typeof tokenizeRequestSchema>;

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: number };
}

/** vLLM's error response (the nested form current releases send). */
export function errorBody(
  message: string,
  code = 400,
  type = 'BadRequestError',
  param: string | null = null,
): ErrorBody {
  return { error: { message, type, param, code } };
}

/** A request the server refuses, with vLLM's status and wording. */
export class WireError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  constructor(
    message: string,
    status = 400,
    type = 'BadRequestError',
    param: string | null = null,
  ) {
    super(message);
    this.name = 'WireError';
    this.status = status;
    this.type = type;
    this.param = param;
  }
  body(): ErrorBody {
    return errorBody(this.message, this.status, this.type, this.param);
  }
}

export function modelNotFound(model: string): WireError {
  return new WireError(`The model \`${model}\` does not exist.`, 404, 'NotFoundError', 'model');
}

// vLLM's two context checks, word for word: the bot recognises a context overflow by
// "maximum context length is N tokens" (src/llm/classify-error.ts), as it does with vLLM.
export function inputTooLong(maxLen: number, prompt: number): WireError {
  return new WireError(
    `This model's maximum context length is ${maxLen} tokens. However, your request has ` +
      `${prompt} input tokens. Please reduce the length of the input messages.`,
  );
}

export function maxTokensTooLarge(maxTokens: number, maxLen: number, prompt: number): WireError {
  return new WireError(
    `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum ` +
      `context length is ${maxLen} tokens and your request has ${prompt} input tokens ` +
      `(${maxTokens} > ${maxLen} - ${prompt}).`,
  );
}

/** A zod failure as one readable line naming the fields. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
    .join('; ');
}

export function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}

export function toolCallId(): string {
  return `chatcmpl-tool-${randomBytes(12).toString('hex')}`;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface OutToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export function usageOf(prompt: number, completion: number): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

export function modelList(
  id: string,
  maxModelLen: number,
  created: number,
): { object: 'list'; data: unknown[] } {
  return {
    object: 'list',
    data: [
      {
        id,
        object: 'model',
        created,
        owned_by: 'threadmind',
        root: id,
        max_model_len: maxModelLen,
      },
    ],
  };
}
