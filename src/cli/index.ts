// The `hldp` command line: one file per subcommand.
export { main } from './main.js';
export type { Command, CommandIo } from './command.js';
