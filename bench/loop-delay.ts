// Event-loop delay of a process over a measured batch (perf_hooks' histogram, 1 ms resolution):
// how long ready work waited for the loop, GC pauses and long synchronous stretches included.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** Starts measuring; `stop` gives p50/p99/max in ms. */
export function loopDelay(): { stop(): LoopDelay } {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  return {
    stop() {
      h.disable();
      return { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
    },
  };
}
