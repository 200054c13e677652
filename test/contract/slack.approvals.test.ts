import { approvalContract, splitApprovalContract } from './approval-contract.ts';
import { makeSlackApprovalDriver } from './slack-approval-driver.ts';

approvalContract('Slack', makeSlackApprovalDriver);
splitApprovalContract('Slack', makeSlackApprovalDriver);
