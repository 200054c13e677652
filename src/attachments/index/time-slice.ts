// Long CPU work (tokenising a 300-page file, labelling its languages) done in slices: after each
// slice the loop lets other conversations' events run, so the event-loop delay stays bounded.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Event-loop time one slice may take before it yields. */
export const SLICE_MS = 8;

/** A function to call between work items: it yields once `sliceMs` have passed since the last. */
export function timeSlicer(sliceMs = SLICE_MS): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    if (performance.now() - last < sliceMs) return undefined;
    return nextTurn().then(() => {
      last = performance.now();
    });
  };
}
