// The split roles' settings (ARCHITECTURE.md, "Scaling out") and what each role needs.
import { z } from 'zod';
import type { SlackTransport } from './slack-config.ts';
import type { WebChat } from './web-config.ts';

const positiveInt = z.number().int().positive();

export const scaleSettingsSchema = z
  .object({
    role: z.enum(['all', 'ingress', 'worker', 'gateway']),
    ingressDrainMs: z.number().int().min(0),
    queue: z
      .object({
        name: z.string().regex(/^[A-Za-z0-9_-]+$/, {
          message: 'may hold only letters, digits, "-" and "_"',
        }),
        concurrency: positiveInt,
        attempts: z.number().int().min(1).max(20),
        backoffMs: positiveInt,
        lockMs: z.number().int().min(1000),
        orderPollMs: positiveInt,
        crashLimit: z.number().int().min(1).max(20),
      })
      .strict(),
    gateway: z
      .object({
        leaseMs: z.number().int().min(1000),
        renewMs: positiveInt,
        pollMs: positiveInt,
        sessionSaveMs: positiveInt,
      })
      .strict(),
  })
  .strict();

/**
 * How long a handed-off delivery's claim lasts until its message is queued: half the gateway lease
 * (at least a second), so it lapses before a standby gateway can take over and resume.
 */
export function claimPendingMs(s: { scale: { gateway: { leaseMs: number } } }): number {
  return Math.max(1000, Math.floor(s.scale.gateway.leaseMs / 2));
}

type ScaleSettings = { scale: z.infer<typeof scaleSettingsSchema>; store: { url: string } };

/** The split roles share the queue and every state through Redis; the web chat is one process's. */
export function checkRole(
  s: ScaleSettings,
  platforms: {
    webChat: WebChat;
    slackTransport: SlackTransport;
    discordApplicationId: string | null;
  },
  problems: string[],
): void {
  const role = s.scale.role;
  if (role === 'all') return;
  const { webChat } = platforms;
  if (!/^rediss?:\/\//.test(s.store.url))
    problems.push(
      `THREADMIND_ROLE=${role} needs a shared Redis store: set STORE_URL=redis://host:6379 (only THREADMIND_ROLE=all runs on SQLite)`,
    );
  if (webChat)
    problems.push(
      `the web chat runs only with THREADMIND_ROLE=all; set WEB_ENABLED=false for THREADMIND_ROLE=${role}`,
    );
  if (role === 'gateway' && !platforms.discordApplicationId)
    problems.push(
      'THREADMIND_ROLE=gateway holds the Discord gateway: set DISCORD_TOKEN and DISCORD_APPLICATION_ID',
    );
  if (role === 'ingress' && !platforms.slackTransport)
    problems.push(
      'THREADMIND_ROLE=ingress receives Slack events: set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN)',
    );
}
