/**
 * Rate-limit state shared by every replica that calls one platform's API with one token, so
 * several workers editing messages stay inside the platform's limits together.
 */
export interface SharedRateLimits {
  /** Waits until a request on `route` may go: its bucket has room and no global limit holds. */
  acquire(route: string): Promise<void>;
  /** What the platform answered on `route`: its status and rate-limit headers. */
  observe(route: string, status: number, header: (name: string) => string | null): Promise<void>;
}
