// What a chat request tells vLLM about sharing the GPU (ARCHITECTURE.md, "Sharing the GPU"):
// `priority` (lower runs first) only when the server runs `--scheduling-policy priority` — vLLM
// refuses a non-zero priority otherwise — and `cache_salt`, which keeps one audience's prefix cache
// apart from another's. Both come from the call's tag, added to the request body on its way out.
import { currentModelCall, type PriorityClass } from '../scope/model-call.ts';

/** vLLM's `priority` per class: lower is served first; 0 is the server's default. */
export const PRIORITY_OF: Readonly<Record<PriorityClass, number>> = {
  interactive: 0,
  background: 5,
  bulk: 10,
};

/** Whether the server schedules by priority: learnt by `probePriorityPolicy`, or configured. */
export type PriorityPolicy = 'priority' | 'fcfs' | 'unknown';

export interface GpuShareOptions {
  /** Read per request: the policy may be learnt after the model is created. */
  policy: () => PriorityPolicy;
  cacheSalt: boolean;
}

/** The fields this call adds, as JSON members to put first in the body ('' for none). */
export function requestFields(o: GpuShareOptions): string {
  const tag = currentModelCall();
  if (!tag) return '';
  const parts: string[] = [];
  const priority = PRIORITY_OF[tag.priority];
  if (priority !== 0 && o.policy() === 'priority') parts.push(`"priority":${priority}`);
  if (o.cacheSalt && tag.cacheSalt) parts.push(`"cache_salt":${JSON.stringify(tag.cacheSalt)}`);
  return parts.join(',');
}

/**
 * A fetch that adds the call's fields to chat completion bodies. The body is the SDK's JSON object
 * text, so the members go in after its `{` without parsing it again.
 */
export function gpuShareFetch(o: GpuShareOptions, inner: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const body = init?.body;
    if (typeof body === 'string' && body.startsWith('{') && body.length > 2) {
      const fields = requestFields(o);
      if (fields) return inner(input, { ...init, body: `{${fields},${body.slice(1)}` });
    }
    return inner(input, init);
  };
}

export interface ProbeTarget {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * One token with `priority: 1`: a server with the policy answers it, one without refuses it with
 * a 400 naming priority. Anything else (down, another error) leaves the policy unknown.
 */
export async function probePriorityPolicy(t: ProbeTarget): Promise<PriorityPolicy> {
  const doFetch = t.fetch ?? fetch;
  try {
    const res = await doFetch(`${t.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(t.apiKey ? { authorization: `Bearer ${t.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: t.model,
        messages: [{ role: 'user', content: 'ok' }],
        max_tokens: 1,
        priority: 1,
      }),
      signal: AbortSignal.timeout(t.timeoutMs),
    });
    const text = await res.text();
    if (res.ok) return 'priority';
    if (res.status === 400 && /priority/i.test(text)) return 'fcfs';
    return 'unknown';
  } catch {
    return 'unknown';
  }
}
