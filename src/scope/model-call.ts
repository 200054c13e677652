// Who a model call is for and what kind it is (ARCHITECTURE.md, "Sharing the GPU"). The turn tags
// its calls once; the chat model reads the tag to set vLLM's `priority` and `cache_salt` and to
// book the call's tokens, so no call site passes people or channels down to the model.
import { AsyncLocalStorage } from 'node:async_hooks';

/** What a call is for; `answer` becomes `tool_round` when the reply only asks for tools. */
export type ModelCallKind = 'answer' | 'tool_round' | 'summary' | 'compression' | 'other';

/** How urgent the GPU should treat it (ARCHITECTURE.md, "Sharing the GPU"). */
export type PriorityClass = 'interactive' | 'background' | 'bulk';

export interface ModelCallTag {
  /** `platform:project` (the per-project key prefix). */
  readonly project: string;
  readonly channel: string;
  readonly person: string;
  readonly kind: ModelCallKind;
  readonly priority: PriorityClass;
  /** Prefix-cache isolation: equal within one audience, different between audiences. */
  readonly cacheSalt?: string | undefined;
  /** Tokens the calls under this tag used so far (fair admission corrects its estimate by it). */
  readonly spent?: { tokens: number } | undefined;
}

const storage = new AsyncLocalStorage<ModelCallTag>();

export function withModelCall<T>(tag: ModelCallTag, fn: () => T): T {
  return storage.run(Object.freeze({ ...tag }), fn);
}

/** The same caller, another kind and class (a compression inside an answer turn). */
export function withModelCallAs<T>(kind: ModelCallKind, priority: PriorityClass, fn: () => T): T {
  const tag = storage.getStore();
  return tag ? withModelCall({ ...tag, kind, priority }, fn) : fn();
}

export function currentModelCall(): ModelCallTag | undefined {
  return storage.getStore();
}
