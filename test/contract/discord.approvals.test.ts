import { approvalContract, splitApprovalContract } from './approval-contract.ts';
import { makeDiscordApprovalDriver } from './discord-approval-driver.ts';

approvalContract('Discord', makeDiscordApprovalDriver);
splitApprovalContract('Discord', makeDiscordApprovalDriver);
