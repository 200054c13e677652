// Injected Web API failures: queued per method, consumed one call at a time.
import type { Fault } from './types.ts';

interface Pending {
  fault: Fault;
  left: number;
}

export class FaultQueue {
  readonly #pending = new Map<string, Pending[]>();

  add(method: string, fault: Fault): void {
    const queue = this.#pending.get(method) ?? [];
    queue.push({ fault, left: Math.max(1, fault.times ?? 1) });
    this.#pending.set(method, queue);
  }

  /** The fault the next call to `method` should get, if any. */
  take(method: string): Fault | undefined {
    const queue = this.#pending.get(method);
    const head = queue?.[0];
    if (queue === undefined || head === undefined) return undefined;
    head.left -= 1;
    if (head.left === 0) queue.shift();
    return head.fault;
  }
}
