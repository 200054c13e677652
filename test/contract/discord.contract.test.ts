import { conversationContract } from './conversation-contract.ts';
import { makeDiscordDriver } from './discord-driver.ts';
import { threadContextContract } from './thread-context-contract.ts';

conversationContract('Discord', makeDiscordDriver);
threadContextContract('Discord', makeDiscordDriver);
