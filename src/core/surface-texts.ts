// Words the platforms' own surfaces show beside the bot's messages: labels of a toggle, the
// heading of an answer's sources, Slack's agent view prompts. Kept here with every other text the
// bot writes, so an adapter composes no English of its own.

export const surfaceTexts = {
  /** A toggle shown as a choice (Discord's modals have no checkbox). */
  toggle: { on: 'On', off: 'Off' },
  /** Before a forwarded message's words where a thread is read (Discord's forwards). */
  forwarded: '[forwarded message]',
  /** The heading of an answer's sources (Slack's task card). */
  sourcesTitle: 'Sources',
  /** The sources without an address, named after the linked ones. */
  sourcesAlso(labels: readonly string[]): string {
    return `Also: ${labels.join(' · ')}`;
  },
  /** How many sources were left out. */
  sourcesMore(n: number): string {
    return `and ${n} more`;
  },
  /** Slack's agent view: the channel the person looks at is not one both they and the bot are in. */
  cannotSeeChannel:
    "I can't see the channel you're looking at: I read a channel only when both you and I are members of it. I'll answer without it.",
  /** What people call a project on each platform, and who may do what there (PlatformSettings). */
  slack: {
    projectNoun: 'workspace',
    settingsAdmins: "workspace admins and owners, the channel's creator and the bot's admins",
    feedbackAdmins: "workspace admins and owners and the bot's admins",
  },
  discord: {
    projectNoun: 'server',
    settingsAdmins: "members with the Manage Channels permission and the bot's admins",
    feedbackAdmins: "members with the Manage Server permission and the bot's admins",
  },
  web: {
    projectNoun: 'workspace',
    settingsAdmins: 'the person who runs this bot (in its config/ files)',
  },
  /** The status while an answer is being written, where the platform does not show its own. */
  thinking: 'is thinking…',
  /** Slack's agent view: the heading of the prompts offered when a thread starts. */
  promptsTitle: 'Try one of these',
  /** …and the prompts (Slack shows at most four). */
  suggestedPrompts: [
    {
      title: "Summarise a channel I'm looking at",
      message: "Summarise the recent messages of the channel I'm looking at.",
    },
    { title: 'What can you do?', message: 'What can you do, and what can you read?' },
    {
      title: 'Ask about a file',
      message: 'I have a question about a file. I will attach it here.',
    },
  ] as readonly { title: string; message: string }[],
} as const;
