import { makeDiscordDriver } from './discord-driver.ts';
import { hostileNamesContract } from './hostile-names-contract.ts';
import { makeSlackDriver } from './slack-driver.ts';
import { makeWebDriver } from './web-driver.ts';

hostileNamesContract('Slack', makeSlackDriver);
hostileNamesContract('Discord', makeDiscordDriver);
hostileNamesContract('Web', makeWebDriver);
