import { commandsContract } from './commands-contract.ts';
import { makeDiscordFlowDriver } from './discord-flow-driver.ts';
import { eraseContract } from './erase-contract.ts';
import { feedbackContract } from './feedback-contract.ts';
import { shareContract, splitShareContract } from './interaction-contract.ts';
import { settingsContract } from './settings-contract.ts';

shareContract('Discord', makeDiscordFlowDriver);
splitShareContract('Discord', makeDiscordFlowDriver);
eraseContract('Discord', makeDiscordFlowDriver);
feedbackContract('Discord', makeDiscordFlowDriver);
settingsContract('Discord', makeDiscordFlowDriver);
commandsContract('Discord', makeDiscordFlowDriver);
