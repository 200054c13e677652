import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The bot's Prometheus metrics, on a registry of its own (no global state between tests). */
export function createMetrics() {
  const registry = new Registry();
  // The event-loop lag monitor samples on a timer: prom-client's default of every 10 ms wakes an
  // idle bot 100 times a second (~5 ms of CPU a second on a small VM, more than a turn's own
  // work); every 100 ms still sees any stall that matters for a chat bot.
  collectDefaultMetrics({
    register: registry,
    prefix: 'threadmind_',
    eventLoopMonitoringPrecision: 100,
  });
  return {
    registry,
    ...turnMetrics(registry),
    ...featureMetrics(registry),
    ...queueMetrics(registry),
  };
}

/** Turns: their time, waits, restarts, reads, tokens, errors and how many run. */
function turnMetrics(registry: Registry) {
  return {
    turnSeconds: new Histogram({
      name: 'threadmind_turn_duration_seconds',
      help: 'Wall time of one turn, from the start of its run to the answer posted',
      labelNames: ['platform', 'outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160],
      registers: [registry],
    }),
    queueWaitSeconds: new Histogram({
      name: 'threadmind_turn_queue_wait_seconds',
      help: 'Time a message waited before its turn started: behind its session, then for a free turn slot',
      labelNames: ['platform'] as const,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
    speculativeRestarts: new Counter({
      name: 'threadmind_thread_read_restarts_total',
      help: 'Follow-up turns started before the thread was read and started again because new messages were found',
      registers: [registry],
    }),
    threadMessagesRead: new Counter({
      name: 'threadmind_thread_messages_read_total',
      help: 'Thread and channel messages read as context for turns, by platform',
      labelNames: ['platform'] as const,
      registers: [registry],
    }),
    // By project and kind only: a label per person would grow without bound.
    usageTokens: new Counter({
      name: 'threadmind_usage_tokens_total',
      help: 'Tokens of model calls booked to usage, by project, kind (answer, tool_round, summary, compression) and direction',
      labelNames: ['project', 'kind', 'direction'] as const,
      registers: [registry],
    }),
    tokens: new Counter({
      name: 'threadmind_llm_tokens_total',
      help: 'Tokens reported by the model server (usage), by direction',
      labelNames: ['direction'] as const,
      registers: [registry],
    }),
    errors: new Counter({
      name: 'threadmind_errors_total',
      help: 'Errors by kind',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    fencedWrites: new Counter({
      name: 'threadmind_fenced_writes_total',
      help: 'Writes refused because the run making them no longer holds its lease (post, edit, delete, react, stream, history)',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'threadmind_queue_depth',
      help: 'Messages waiting or running, over all sessions',
      registers: [registry],
    }),
    turnsInFlight: new Gauge({
      name: 'threadmind_turns_in_flight',
      help: 'Turns running now',
      registers: [registry],
    }),
  };
}

/** Files, prompt counting, compression, feedback and duplicate deliveries. */
function featureMetrics(registry: Registry) {
  return {
    attachments: new Counter({
      name: 'threadmind_attachments_total',
      help: 'Files taken in, by detected kind and outcome (ready or an error code)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    tokenEstimateError: new Histogram({
      name: 'threadmind_token_estimate_error_ratio',
      help: 'Relative error of the prompt token count against the server-reported prompt_tokens, by counting step',
      labelNames: ['source'] as const,
      buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1],
      registers: [registry],
    }),
    compressions: new Counter({
      name: 'threadmind_history_compressions_total',
      help: 'Thread histories compressed, by how (summary, or oldest turns dropped when the summary failed)',
      labelNames: ['how'] as const,
      registers: [registry],
    }),
    feedback: new Counter({
      name: 'threadmind_feedback_total',
      help: 'Votes on answers (a changed vote counts again), by platform, model and vote; by channel when feedback.metricsByChannel',
      labelNames: ['platform', 'channel', 'model', 'vote'] as const,
      registers: [registry],
    }),
    duplicateEvents: new Counter({
      name: 'threadmind_duplicate_events_total',
      help: 'Platform events dropped as retries or duplicates',
      labelNames: ['platform'] as const,
      registers: [registry],
    }),
  };
}

/** Split roles (src/queue): the shared queue, its workers and the Discord gateway lease. */
function queueMetrics(registry: Registry) {
  return {
    queueJobs: new Gauge({
      name: 'threadmind_queue_jobs',
      help: 'Jobs in the shared turn queue by state (waiting drives the workers autoscaler)',
      labelNames: ['state'] as const,
      registers: [registry],
    }),
    queueJobsFailed: new Counter({
      name: 'threadmind_queue_jobs_failed_total',
      help: 'Queued messages that failed on every attempt and were told so in their thread',
      registers: [registry],
    }),
    queuePickupSeconds: new Histogram({
      name: 'threadmind_queue_pickup_seconds',
      help: 'From enqueue (ingress or gateway) to a worker starting the message',
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers: [registry],
    }),
    turnsResumed: new Counter({
      name: 'threadmind_turns_resumed_total',
      help: 'Queued messages run again after the worker running them stopped mid-answer',
      registers: [registry],
    }),
    gatewayActive: new Gauge({
      name: 'threadmind_gateway_active',
      help: '1 while this process holds the Discord gateway lease',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
