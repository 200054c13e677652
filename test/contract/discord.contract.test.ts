import { conversationContract } from './conversation-contract.ts';
import { makeDiscordDriver } from './discord-driver.ts';

conversationContract('Discord', makeDiscordDriver);
