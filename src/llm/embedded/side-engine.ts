// What the embedded side engines (embeddings, ranking) share: loading a GGUF on the CPU with a
// context whose batch is the whole context (a non-causal model or a cross-encoder reads one input
// in one batch), and serving requests one at a time in arrival order (the ranking engine; llama.cpp
// threads spin: one evaluation at a time is what the cores can do anyway).
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { cpuLlama } from './engine.ts';

export interface SideEngineOptions {
  modelPath: string;
  /** Tokens of one input; capped at the model's training context. */
  contextSize: number;
  /** CPU threads for evaluation (never more than the cores). */
  threads: number;
}

export interface LoadedSideModel<C> {
  llama: Llama;
  model: LlamaModel;
  context: C;
  contextSize: number;
}

/** Loads the model and its context, or disposes of what was loaded and throws. */
export async function loadSideModel<C>(
  o: SideEngineOptions,
  createContext: (
    model: LlamaModel,
    opts: { contextSize: number; batchSize: number; threads: number },
  ) => Promise<C>,
): Promise<LoadedSideModel<C>> {
  const llama = await cpuLlama(o.threads);
  try {
    const model = await llama.loadModel({ modelPath: o.modelPath });
    const contextSize = Math.min(o.contextSize, model.trainContextSize);
    const context = await createContext(model, {
      contextSize,
      batchSize: contextSize,
      threads: o.threads,
    });
    return { llama, model, context, contextSize };
  } catch (err) {
    await llama.dispose();
    throw err;
  }
}

/** Runs jobs one at a time in the order they came; a failed job does not stop the next. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const run = this.tail.then(job);
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Settles once every job queued so far has. */
  async drained(): Promise<void> {
    await this.tail;
  }
}
