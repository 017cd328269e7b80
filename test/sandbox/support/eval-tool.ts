import { makeToolYaml } from '../../helpers/git.js';

/** The fields of a shell tool that runs its one parameter, `cmd`, as a script (`eval`): any command, as a real call. */
export const EVAL_SH: Readonly<Record<string, string>> = { executor: 'shell', method: 'run', params_schema: '{ cmd: { type: string, required: true } }', shell: '{ script: "eval \\"$HLDP_PARAM_CMD\\"" }' };

/** The TOOL.hdlp of such a tool named `name` (`extra`: more fields, a `sandbox:` block, constraints). */
export function evalShTool(name = 'sh', extra: Record<string, string> = {}): string {
  return makeToolYaml(name, { ...EVAL_SH, ...extra });
}
