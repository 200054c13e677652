// Sharing the GPU (ARCHITECTURE.md, "Sharing the GPU"): vLLM's priority and cache salt, token
// budgets, and fair admission. Budgets are keyed like usage: people `platform:user`, channels
// `platform:project:channel`, projects `platform:project`.
import { z } from 'zod';

/** A day's or a month's tokens; 0 = no budget. Beyond a billion is a typo, not a budget. */
export const MAX_BUDGET_TOKENS = 1_000_000_000;
export const budgetTokens = z
  .number()
  .int({ message: 'must be a whole number of tokens' })
  .min(0, { message: 'must be 0 (no budget) or more' })
  .max(MAX_BUDGET_TOKENS, { message: `must be at most ${MAX_BUDGET_TOKENS} tokens` });

export const budgetSchema = z.object({ daily: budgetTokens, monthly: budgetTokens }).strict();
export type Budget = z.infer<typeof budgetSchema>;

const budgetsFor = z.record(z.string().min(1), budgetSchema);

export const sharingSettingsSchema = z
  .object({
    /** vLLM's request priority: auto (probe the server), on, off. */
    priority: z.enum(['auto', 'on', 'off']),
    /** Send vLLM's cache_salt per audience. */
    cacheSalt: z.boolean(),
    budgets: z
      .object({
        /** Every person, channel and project unless listed below; 0 = none. */
        person: budgetSchema,
        channel: budgetSchema,
        project: budgetSchema,
        people: budgetsFor,
        channels: budgetsFor,
        projects: budgetsFor,
        /** Share of a budget at which the asker is warned once. */
        warnAt: z.number().gt(0).lt(1),
        /** Platform admins are not held to budgets. */
        adminsExempt: z.boolean(),
        /** More people (`platform:user`) not held to budgets. */
        exempt: z.array(z.string().regex(/^[a-z]+:.+$/, { message: 'must be "platform:user"' })),
      })
      .strict(),
    fairness: z
      .object({
        /** `fair` (weighted fair queueing by recent tokens) or `fifo` (the old order). */
        admission: z.enum(['fair', 'fifo']),
        /** Tokens charged up front for a question whose cost is not known yet. */
        turnEstimateTokens: z.number().int().min(1),
        /** How often a waiting question's place is updated in its status; 0: not shown. */
        showPlaceEveryMs: z.number().int().min(0),
        /** Counters in Redis, shared by every worker: auto (in split roles), on (a Redis store), off. */
        sharedCounters: z.enum(['auto', 'on', 'off']),
        /** A channel or person without an admission this long is forgotten (its counter starts over). */
        forgetIdleMs: z.number().int().min(1000),
      })
      .strict(),
  })
  .strict();

export type SharingSettings = z.infer<typeof sharingSettingsSchema>;
