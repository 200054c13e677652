// Fencing at the port: a reply of a queued job carries the run's fencing token (its job lease's
// generation, FENCE_CONTEXT). Before a post, edit, deletion, reaction or stream write the token is
// compared with the lease's current generation; a run that lost the job (it stalled past its lock
// and another worker took over) is refused, and the refusal counted.
import type { Destination } from '../model/platform-port.ts';
import type { Leases } from '../store/lease.ts';
import { FENCE_CONTEXT, JOB_CONTEXT, jobLeaseKey } from './wire.ts';

export type FencedKind = 'post' | 'edit' | 'delete' | 'react' | 'stream' | 'footer' | 'private';

export class FencedWriteError extends Error {
  constructor(jobId: string, kind: FencedKind) {
    super(`refused a ${kind} of job ${jobId}: a newer run of the job holds it`);
    this.name = 'FencedWriteError';
  }
}

export interface RunFenceDeps {
  leases: Pick<Leases, 'isCurrent'>;
  refused(kind: FencedKind): void;
}

export class RunFences {
  private readonly d: RunFenceDeps;

  constructor(d: RunFenceDeps) {
    this.d = d;
  }

  /** Throws `FencedWriteError` when `to` belongs to a run whose token is no longer current. */
  async check(to: Destination, kind: FencedKind): Promise<void> {
    const job = to.context[JOB_CONTEXT];
    const token = Number(to.context[FENCE_CONTEXT]);
    if (typeof job !== 'string' || !Number.isInteger(token)) return;
    if (await this.d.leases.isCurrent({ lease: jobLeaseKey(job), token })) return;
    this.d.refused(kind);
    throw new FencedWriteError(job, kind);
  }
}
