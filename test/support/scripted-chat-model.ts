// A chat model for the core's unit tests: each call plays the next script, a list of steps (text to
// stream, a gate to wait at, an error to throw), and records the prompt it was given. A gate
// gives way when the call's signal aborts, as a real request does.
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';

export type Step = string | { gate: Promise<unknown> } | { fail: Error };

/** A promise the test resolves when it chooses. */
export function gate(): { wait: { gate: Promise<unknown> }; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait: { gate: promise }, open };
}

function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    p.then(resolve, reject);
  });
}

export class ScriptedChatModel extends BaseChatModel {
  /** The messages of every call, in order. */
  readonly prompts: BaseMessage[][] = [];
  private readonly scripts: Step[][];
  private readonly fallback: Step[];

  /** `scripts[i]` is played by call i; calls past the end play `fallback`. */
  constructor(scripts: Step[][], fallback: Step[] = ['(unscripted)']) {
    super({});
    this.scripts = scripts;
    this.fallback = fallback;
  }

  _llmType(): string {
    return 'scripted';
  }

  /** The texts of every call's messages, joined (to see what a call was shown). */
  promptText(call: number): string {
    return (this.prompts[call] ?? []).map((m) => String(m.content)).join('\n');
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const steps = this.scripts[this.prompts.length] ?? this.fallback;
    this.prompts.push(messages);
    for (const step of steps) {
      if (typeof step === 'string') {
        const chunk = new ChatGenerationChunk({
          message: new AIMessageChunk({ content: step }),
          text: step,
        });
        yield chunk;
        await runManager?.handleLLMNewToken(step, undefined, undefined, undefined, undefined, {
          chunk,
        });
      } else if ('gate' in step) {
        await untilAborted(step.gate, options.signal);
      } else {
        throw step.fail;
      }
    }
  }

  async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    let text = '';
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      text += chunk.text;
    }
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}
