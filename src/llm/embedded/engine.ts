// The embedded model: one GGUF loaded with node-llama-cpp (an optional dependency, imported only
// when the embedded model is used), one context with one sequence, generations one at a time in
// arrival order. Later requests reuse the evaluated prefix they share with the previous one.
import path from 'node:path';
import type {
  ChatHistoryItem,
  ChatModelFunctions,
  ChatWrapper,
  ChatWrapperGenerateContextStateOptions,
  ChatWrapperGeneratedContextState,
  Llama,
  LlamaChatResponse,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
  Token,
} from 'node-llama-cpp';
import type { FinishReason } from './wire.ts';

type NodeLlamaCpp = typeof import('node-llama-cpp');

/** The embedded model cannot run here; the message says what to do. */
export class EmbeddedSetupError extends Error {
  /** The problem alone; `message` is it followed by the fix. */
  readonly summary: string;
  /** What to do about it, when there is something to do. */
  readonly fix: string | undefined;
  constructor(summary: string, options?: ErrorOptions & { fix?: string }) {
    super(options?.fix ? `${summary} ${options.fix}` : summary, options);
    this.name = 'EmbeddedSetupError';
    this.summary = summary;
    this.fix = options?.fix;
  }
}

function errorCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
}

/**
 * llama.cpp on the CPU with the prebuilt binary or nothing: no compiling and no downloads at
 * start-up, at most `threads` threads (its threads spin, so more than the cores slows everything).
 */
export async function cpuLlama(threads: number) {
  const lib = await loadNodeLlamaCpp();
  return lib.getLlama({
    gpu: false,
    build: 'never',
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    maxThreads: threads,
    logLevel: lib.LlamaLogLevel.error,
  });
}

/** node-llama-cpp, loaded on first use so that deployments on vLLM never load it. */
export async function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  try {
    return await import('node-llama-cpp');
  } catch (err) {
    if (errorCode(err) === 'ERR_MODULE_NOT_FOUND') {
      throw new EmbeddedSetupError(
        'The embedded model needs the optional package node-llama-cpp, which is not installed.',
        {
          cause: err,
          fix: 'Install it with `npm install node-llama-cpp`, or point LLM_TEXT_BASE_URL at a model server (vLLM).',
        },
      );
    }
    throw err;
  }
}

export type ToolChoice = 'none' | 'auto' | 'required' | { name: string };

export interface GenerateInput {
  history: ChatHistoryItem[];
  /** Every tool of the request: documented in the prompt whatever the tool choice. */
  functions: ChatModelFunctions;
  toolChoice: ToolChoice;
  maxTokens: number;
  temperature: number;
  topP?: number | undefined;
  topK?: number | undefined;
  seed?: number | undefined;
  stop: string[];
  signal: AbortSignal;
  onText?: (text: string) => void;
}

export interface GeneratedCall {
  name: string;
  params: unknown;
}

export interface GenerateResult {
  text: string;
  calls: GeneratedCall[];
  finish: FinishReason;
  promptTokens: number;
  completionTokens: number;
}

export interface EngineOptions {
  modelPath: string;
  /** Tokens of context; capped at the model's training context. */
  contextSize: number;
  /** CPU threads for evaluation (llama.cpp threads spin: never more than the cores). */
  threads: number;
}

export class EmbeddedEngine {
  readonly id: string;
  readonly contextSize: number;
  readonly threads: number;
  private readonly lib: NodeLlamaCpp;
  private readonly llama: Llama;
  private readonly model: LlamaModel;
  private readonly context: LlamaContext;
  private readonly sequence: LlamaContextSequence;
  private readonly wrapper: ChatWrapper;
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  private constructor(
    lib: NodeLlamaCpp,
    llama: Llama,
    model: LlamaModel,
    context: LlamaContext,
    o: EngineOptions,
  ) {
    this.lib = lib;
    this.llama = llama;
    this.model = model;
    this.context = context;
    this.sequence = context.getSequence();
    this.id = path.basename(o.modelPath).replace(/\.gguf$/i, '');
    this.contextSize = context.contextSize;
    this.threads = o.threads;
    this.wrapper = lib.resolveChatWrapper(model);
  }

  static async load(o: EngineOptions): Promise<EmbeddedEngine> {
    const lib = await loadNodeLlamaCpp();
    const llama = await cpuLlama(o.threads);
    try {
      const model = await llama.loadModel({ modelPath: o.modelPath });
      const contextSize = Math.min(o.contextSize, model.trainContextSize);
      const context = await model.createContext({
        contextSize,
        sequences: 1,
        threads: o.threads,
      });
      return new EmbeddedEngine(lib, llama, model, context, o);
    } catch (err) {
      await llama.dispose();
      throw err;
    }
  }

  /** Requests waiting for (or running) a generation. */
  get queued(): number {
    return this.waiting;
  }

  /** The name of the chat template in use (e.g. ChatML), for the log. */
  get chatTemplate(): string {
    return this.wrapper.wrapperName;
  }

  /** The prompt exactly as generation loads it: the chat template applied, tools documented. */
  promptTokens(history: readonly ChatHistoryItem[], functions: ChatModelFunctions): Token[] {
    const state = this.wrapper.generateContextState(this.stateOptions(history, functions));
    return state.contextText.tokenize(this.model.tokenizer);
  }

  /** Plain text with the model's tokenizer; `addSpecial` adds BOS where the model wants one. */
  tokenizeText(text: string, addSpecial: boolean): Token[] {
    const tokens = this.model.tokenize(text);
    const bos = this.model.tokens.bos;
    if (addSpecial && bos !== null && this.model.tokens.shouldPrependBosToken) {
      return [bos, ...tokens];
    }
    return tokens;
  }

  /** Queued behind the generations before it: one context sequence runs one at a time. */
  generate(input: GenerateInput): Promise<GenerateResult> {
    this.waiting += 1;
    const run = this.tail.then(() => {
      input.signal.throwIfAborted();
      return this.run(input);
    });
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run.finally(() => {
      this.waiting -= 1;
    });
  }

  async close(): Promise<void> {
    await this.tail;
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }

  private stateOptions(
    history: readonly ChatHistoryItem[],
    functions: ChatModelFunctions,
  ): ChatWrapperGenerateContextStateOptions {
    return Object.keys(functions).length > 0
      ? { chatHistory: history, availableFunctions: functions }
      : { chatHistory: history };
  }

  /**
   * The model's chat wrapper, with the prompt always documenting every tool of the request (a
   * named tool_choice narrows which call may be generated, not what the prompt shows) and, when a
   * call is forced, the generation starting in function-calling mode right after the prompt.
   */
  private wrapperFor(documented: ChatModelFunctions, force: boolean): ChatWrapper {
    const base = this.wrapper;
    const callPrefix = base.settings.functions.call.prefix;
    const { LlamaText } = this.lib;
    const generateContextState = (
      o: ChatWrapperGenerateContextStateOptions,
    ): ChatWrapperGeneratedContextState => {
      const state = base.generateContextState(this.stateOptions(o.chatHistory, documented));
      if (!force) return state;
      return {
        contextText: state.contextText,
        stopGenerationTriggers: state.stopGenerationTriggers,
        prefixTriggers: [],
        noPrefixTrigger: { type: 'functionCall', inject: LlamaText(callPrefix) },
      };
    };
    return new Proxy(base, {
      get(target, prop) {
        if (prop === 'generateContextState') return generateContextState;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  private async run(input: GenerateInput): Promise<GenerateResult> {
    const promptTokens = this.promptTokens(input.history, input.functions).length;
    const choice = input.toolChoice;
    const hasTools = Object.keys(input.functions).length > 0;
    let callable: ChatModelFunctions | undefined;
    if (hasTools && choice !== 'none') {
      if (typeof choice === 'object') {
        const fn = input.functions[choice.name];
        callable = fn ? { [choice.name]: fn } : undefined;
      } else callable = input.functions;
    }
    const force = callable !== undefined && (choice === 'required' || typeof choice === 'object');
    const chat = new this.lib.LlamaChat({
      contextSequence: this.sequence,
      chatWrapper: this.wrapperFor(input.functions, force),
    });
    const before = this.sequence.tokenMeter.usedOutputTokens;
    let response: LlamaChatResponse<ChatModelFunctions>;
    try {
      response = await chat.generateResponse(input.history, {
        maxTokens: input.maxTokens,
        temperature: input.temperature,
        ...(input.topP !== undefined ? { topP: input.topP } : {}),
        ...(input.topK !== undefined ? { topK: input.topK } : {}),
        ...(input.seed !== undefined ? { seed: input.seed } : {}),
        ...(input.stop.length > 0 ? { customStopTriggers: input.stop } : {}),
        signal: input.signal,
        stopOnAbortSignal: true,
        ...(input.onText ? { onTextChunk: input.onText } : {}),
        ...(callable ? { functions: callable } : {}),
      });
    } finally {
      chat.dispose({ disposeSequence: false });
    }
    const completionTokens = this.sequence.tokenMeter.usedOutputTokens - before;
    const calls = (response.functionCalls ?? []).map((c) => ({
      name: c.functionName,
      params: c.params,
    }));
    const stop = response.metadata.stopReason;
    const finish: FinishReason =
      calls.length > 0 ? 'tool_calls' : stop === 'maxTokens' ? 'length' : 'stop';
    return { text: response.response, calls, finish, promptTokens, completionTokens };
  }
}
