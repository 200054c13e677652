// Discord REST calls through rate-limit state shared by every replica (src/queue's Redis buckets):
// discord.js still paces each process, and this keeps the processes together under the limits.
import { DefaultRestOptions, type RESTOptions } from 'discord.js';
import type { SharedRateLimits } from '../../src/model/rate-limits.ts';

/** Discord's rate-limit route: method and path, ids kept only for the major parameters. */
export function rateLimitRoute(method: string, url: string): string {
  const path = new URL(url).pathname.replace(/^\/api(\/v\d+)?/, '');
  const route = path
    // Reactions share one bucket per channel whatever the emoji.
    .replace(/\/reactions\/.*/, '/reactions')
    .replace(/(^|\/)(\d{16,20})/g, (whole, slash: string, _id: string, offset: number) => {
      const before = path.slice(0, offset);
      const major = /\/(channels|guilds|webhooks)$/.test(before);
      return major ? whole : `${slash}:id`;
    });
  return `${method.toUpperCase()} ${route}`;
}

/** A `makeRequest` for discord.js that waits for room in the shared bucket and reports each answer. */
export function sharedMakeRequest(limits: SharedRateLimits): RESTOptions['makeRequest'] {
  return async (url, init) => {
    const route = rateLimitRoute(init.method ?? 'GET', url);
    // Sharing is a courtesy between replicas: without Redis, discord.js's own pacing still holds.
    await limits.acquire(route).catch(() => undefined);
    const res = await DefaultRestOptions.makeRequest(url, init);
    await limits.observe(route, res.status, (name) => res.headers.get(name)).catch(() => undefined);
    return res;
  };
}
