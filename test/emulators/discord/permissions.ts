// Permission bitfields of the emulated guilds: what @everyone, the bot's managed role and a
// DM allow. Guild owners hold every permission.

// Bits from https://discord.com/developers/docs/topics/permissions.
export const Perm = {
  CreateInstantInvite: 1n << 0n,
  AddReactions: 1n << 6n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  ManageMessages: 1n << 13n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  MentionEveryone: 1n << 17n,
  UseExternalEmojis: 1n << 18n,
  ChangeNickname: 1n << 26n,
  UseApplicationCommands: 1n << 31n,
  ManageThreads: 1n << 34n,
  CreatePublicThreads: 1n << 35n,
  SendMessagesInThreads: 1n << 38n,
} as const;

export const EVERYONE_PERMS =
  Perm.CreateInstantInvite |
  Perm.AddReactions |
  Perm.ViewChannel |
  Perm.SendMessages |
  Perm.EmbedLinks |
  Perm.AttachFiles |
  Perm.ReadMessageHistory |
  Perm.UseExternalEmojis |
  Perm.ChangeNickname |
  Perm.UseApplicationCommands |
  Perm.CreatePublicThreads |
  Perm.SendMessagesInThreads;

// What the bot may do in a DM: no guild, so no roles; the DM defaults.
export const DM_PERMS =
  Perm.AddReactions |
  Perm.ViewChannel |
  Perm.SendMessages |
  Perm.EmbedLinks |
  Perm.AttachFiles |
  Perm.ReadMessageHistory |
  Perm.UseExternalEmojis |
  Perm.UseApplicationCommands;

export const BOT_ROLE_PERMS = EVERYONE_PERMS | Perm.ManageThreads;

export const ALL_PERMS = (1n << 51n) - 1n;
