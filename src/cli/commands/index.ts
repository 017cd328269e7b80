import type { Command } from '../command.js';
import { approvalsCommand } from './approvals-command.js';
import { callCommand } from './call-command.js';
import { confirmCommand } from './confirm-command.js';
import { exportCommand } from './export-command.js';
import { gatekeeperCommand } from './gatekeeper-command.js';
import { importCommand } from './import-command.js';
import { listCommand } from './list-command.js';
import { matchCommand } from './match-command.js';
import { mcpCommand } from './mcp-command.js';
import { receiptsCommand } from './receipts-command.js';
import { scanCommand } from './scan-command.js';
import { serveCommand } from './serve-command.js';
import { suggestCommand } from './suggest-command.js';
import { tailCommand } from './tail-command.js';
import { validateCommand } from './validate-command.js';

/** Every `hldp` subcommand, in the order `hldp --help` lists them. */
export const COMMANDS: Command[] = [
  serveCommand,
  scanCommand,
  listCommand,
  matchCommand,
  callCommand,
  confirmCommand,
  approvalsCommand,
  receiptsCommand,
  suggestCommand,
  tailCommand,
  validateCommand,
  gatekeeperCommand,
  mcpCommand,
  exportCommand,
  importCommand,
];
