// OpenAI chat messages and tools → node-llama-cpp's chat history and functions. Both the chat
// endpoint and /tokenize go through here, so a count from /tokenize is the prompt generation loads.
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  GbnfJsonSchema,
} from 'node-llama-cpp';
import { WireError, type WireMessage, type WireTool } from './wire.ts';

function textOf(content: WireMessage['content'] | null | undefined, role: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const part of content) {
    if (part.type !== 'text') {
      throw new WireError(
        `The embedded model is text-only: a ${role} message may not carry ${String(part.type)} content.`,
      );
    }
    parts.push(part.text as string);
  }
  return parts.join('\n');
}

function parseArguments(raw: string, name: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    throw new WireError(`The arguments of the call to ${name} are not valid JSON.`);
  }
}

/**
 * The conversation as node-llama-cpp renders it. With `generationPrompt`, a conversation that
 * ends in a user or system message gets an empty model turn (the assistant's header), like a chat
 * template's add_generation_prompt; one that ends in the model's tool calls continues that turn.
 */
export function toChatHistory(messages: readonly WireMessage[], generationPrompt = true) {
  const history: ChatHistoryItem[] = [];
  const calls = new Map<string, ChatModelFunctionCall>();
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
        history.push({ type: 'system', text: textOf(m.content, m.role) });
        break;
      case 'user':
        history.push({ type: 'user', text: textOf(m.content, m.role) });
        break;
      case 'assistant': {
        const response: (string | ChatModelFunctionCall)[] = [];
        const text = textOf(m.content, m.role);
        if (text !== '') response.push(text);
        for (const c of m.tool_calls ?? []) {
          const call: ChatModelFunctionCall = {
            type: 'functionCall',
            name: c.function.name,
            params: parseArguments(c.function.arguments, c.function.name),
            result: '',
          };
          calls.set(c.id, call);
          response.push(call);
        }
        history.push({ type: 'model', response });
        break;
      }
      case 'tool': {
        const call = calls.get(m.tool_call_id);
        if (!call) {
          throw new WireError(
            `A tool message answers tool_call_id "${m.tool_call_id}", which no earlier assistant message made.`,
          );
        }
        call.result = textOf(m.content, m.role);
        break;
      }
    }
  }
  if (generationPrompt && history.at(-1)?.type !== 'model') {
    history.push({ type: 'model', response: [] });
  }
  return history;
}

const KEPT = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'enum',
  'const',
  'oneOf',
  '$defs',
  '$ref',
]);
const FORMATS = new Set(['date-time', 'time', 'date']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A tool's JSON Schema reduced to what node-llama-cpp's grammar understands (it constrains the
 * call's arguments to the schema): `anyOf` becomes `oneOf`; keywords it lacks (`$schema`,
 * `pattern`, `default`, …) are dropped, and a schema that says nothing becomes any JSON scalar.
 */
export function toGrammarSchema(schema: unknown): GbnfJsonSchema {
  if (!isRecord(schema)) return { type: ['string', 'number', 'boolean', 'null'] };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'anyOf' && Array.isArray(value)) out.oneOf = value.map(toGrammarSchema);
    else if (key === 'format' && typeof value === 'string' && FORMATS.has(value))
      out.format = value;
    else if (!KEPT.has(key)) continue;
    else if (key === 'properties' && isRecord(value))
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, toGrammarSchema(v)]),
      );
    else if (key === '$defs' && isRecord(value))
      out.$defs = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, toGrammarSchema(v)]),
      );
    else if ((key === 'items' || key === 'additionalProperties') && isRecord(value))
      out[key] = toGrammarSchema(value);
    else if ((key === 'oneOf' || key === 'prefixItems') && Array.isArray(value))
      out[key] = value.map(toGrammarSchema);
    else out[key] = value;
  }
  if (!('type' in out) && !('enum' in out) && !('const' in out) && !('oneOf' in out)) {
    if (!('$ref' in out)) out.type = ['string', 'number', 'boolean', 'null'];
  }
  return out as GbnfJsonSchema;
}

export function toFunctions(tools: readonly WireTool[] | null | undefined): ChatModelFunctions {
  const functions: Record<string, ChatModelFunctions[string]> = {};
  for (const t of tools ?? []) {
    const { name, description, parameters } = t.function;
    functions[name] = {
      ...(description ? { description } : {}),
      ...(parameters && Object.keys(parameters).length > 0
        ? { params: toGrammarSchema(parameters) }
        : {}),
    };
  }
  return functions;
}
