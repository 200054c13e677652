import { makeDiscordDriver } from './discord-driver.ts';
import { hostileNamesContract } from './hostile-names-contract.ts';
import { makeSlackDriver } from './slack-driver.ts';

hostileNamesContract('Slack', makeSlackDriver);
hostileNamesContract('Discord', makeDiscordDriver);
