// What the core needs to know about a platform beyond its port: the words people there use and
// who may do what, as the adapter tells it when it attaches.

/** How a reply is written on this platform. */
export interface OutputSettings {
  thinkingText: string;
  updateIntervalMs: number;
  nativeStreaming: boolean;
}

export interface PlatformSettings extends OutputSettings {
  /** What people call a project here ("workspace" on Slack, "server" on Discord). */
  projectNoun: string;
  /** Who may change a channel's settings, in words ("workspace admins, …"). */
  settingsAdmins: string;
  /** Who may export the project's feedback, in words; default `settingsAdmins`. */
  feedbackAdmins?: string;
  /** Who may erase the project's stored data, in words; default `feedbackAdmins`. */
  eraseAdmins?: string;
  /** The bot's configured admins here (user ids): every right a project's admin has. */
  admins?: readonly string[];
  /** Keys under the project that erasing keeps (the installation: it belongs to uninstalling). */
  erasePreserves?: (projectId: string) => string[];
}
