import { makeDiscordDriver } from './discord-driver.ts';
import { budgetContract, queueDeletionContract } from './sharing-contract.ts';
import { makeSlackDriver } from './slack-driver.ts';
import { makeWebDriver } from './web-driver.ts';

budgetContract('Slack', makeSlackDriver);
budgetContract('Discord', makeDiscordDriver);
budgetContract('Web', makeWebDriver);
queueDeletionContract('Slack', makeSlackDriver);
queueDeletionContract('Discord', makeDiscordDriver);
