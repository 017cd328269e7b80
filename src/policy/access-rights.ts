import { CALLING_ROLES, contestedMessage, describeGate, passesGate, type Role, type ToolDefinition, type ToolIndex } from '../core/index.js';
import { approvalMarkers } from './approval-markers.js';
import { outrightDeny } from './outright-deny.js';
import { PolicySet } from './policy-set.js';
import type { Principal, Principals } from './principals.js';

/** Who asks (the sessions' `Subject`): the session, if any, and the principal it acts for. */
export interface AccessSubject {
  session?: string;
  principal?: string;
}

/**
 * The rights layer of the visibility lattice (seeds 001, 003), in the shape the sessions' `RightsLayer` takes:
 * `refuse` answers why a tool is forbidden to a principal, `reserve` why it is only reserved (findable and
 * loadable, not listed).
 */
export interface AccessLayer {
  readonly name: string;
  refuse(tool: ToolDefinition, subject: AccessSubject, index: ToolIndex): string | undefined;
  reserve(tool: ToolDefinition, subject: AccessSubject, index: ToolIndex): string | undefined;
  /** Why the subject may not be told of a tool known only by its name (a broken `TOOL.hdlp`), or undefined. */
  refuseUnread(name: string, subject: AccessSubject, index: ToolIndex): string | undefined;
  /** What of the config names nothing in `index`: said once per index, since it silently gives or denies nothing. */
  warnings(index: ToolIndex): string[];
  /** The tool's mode markers as the approval rules decide them for this principal; undefined: the tool's own. */
  markers(tool: ToolDefinition, subject: AccessSubject, index: ToolIndex): readonly string[] | undefined;
}

const rolesOf = (principal: Principal): string => [...principal.roles].join(', ');

/**
 * Identity gates always win: a broken policy refuses everything; a principal needs a role that calls tools;
 * a tool's own `access:` block and every policy access rule covering it must let the principal through.
 * Then the principal's base list (`principals.<name>.tools`): for an untrusted principal it is a ceiling
 * that no toolset, `tool_load` or `tool_call` can widen (forbidden); for a trusted one an active toolset
 * replaces it, so a tool outside it is only reserved (seed 001: "in a trusted turn the set replaces the
 * base access; in an untrusted one it can only narrow").
 */
export function accessRights(principals: Principals): AccessLayer {
  const principalOf = (subject: AccessSubject): Principal | undefined => (subject.principal === undefined ? principals.anonymous() : principals.get(subject.principal));
  return {
    name: 'principals and access rules',
    refuse(tool, subject, index) {
      const set = PolicySet.of(index);
      const broken = set.brokenReason;
      if (broken) return broken;
      const principal = principalOf(subject);
      if (!principal) {
        return subject.principal === undefined
          ? 'the request names no principal: send Authorization: Bearer <a principal\'s token>'
          : `principal '${subject.principal}' is not configured (any more); open a new session with a configured principal's token`;
      }
      if (!CALLING_ROLES.some((role) => principal.roles.has(role))) {
        return `principal '${principal.name}' has roles ${rolesOf(principal)}: calling tools needs one of ${CALLING_ROLES.join(', ')}`;
      }
      if (tool.access && !passesGate(tool.access, principal)) {
        return `'${tool.name}' is for ${describeGate(tool.access)} (its access block in ${tool.source.path}); principal '${principal.name}' has roles ${rolesOf(principal)}`;
      }
      for (const { gate, reason, where } of set.gatesFor(tool)) {
        if (!passesGate(gate, principal)) return `${reason ?? `'${tool.name}' is for ${describeGate(gate)}`} (${where}); principal '${principal.name}' has roles ${rolesOf(principal)}`;
      }
      if (principal.tools && !principal.roles.has('trusted' satisfies Role) && !principal.roles.has('admin') && !set.baseList(principal.name, principal.tools).has(tool.name)) {
        return `'${tool.name}' is not in the tools of principal '${principal.name}' (principals.${principal.name}.tools in the config); '${principal.name}' is not trusted, so no toolset, tool_load or tool_call can widen them`;
      }
      // an approval rule that denies this caller every call: listed, it would have the agent spend calls on it (review userZ4, F8)
      const denied = outrightDeny(index, tool, principal);
      if (denied) return `${denied.reason ?? `the policy denies principal '${principal.name}' every call of '${tool.name}'`} (${denied.ref.where}: an approval rule with callers and no conditions)`;
      return undefined;
    },
    refuseUnread(name, subject, index) {
      const broken = PolicySet.of(index).brokenReason;
      if (broken) return broken;
      const principal = principalOf(subject);
      // its access: block and the policy rules that would cover it cannot be read: only an admin, whom role gates let through and who reads the repository, is told (review Z2, Z2-3)
      if (!principal?.roles.has('admin')) return `'${name}' has a broken definition, whose access cannot be read: only an admin is told of it`;
      return undefined;
    },
    reserve(tool, subject, index) {
      const principal = principalOf(subject);
      if (!principal?.tools || PolicySet.of(index).baseList(principal.name, principal.tools).has(tool.name)) return undefined;
      return `'${tool.name}' is not in the base list of principal '${principal.name}' (principals.${principal.name}.tools in the config), which a trusted principal's toolsets replace`;
    },
    markers(tool, subject, index) {
      const principal = principalOf(subject);
      return principal ? approvalMarkers(index, tool, principal) : undefined;
    },
    warnings(index) {
      // a base list entry naming a toolset gave nothing, silently: the README's own example did (review V, V1)
      return principals.list().flatMap((principal) => [
        ...PolicySet.of(index).unmatchedNames(principal.tools ?? []).map(({ name, toolset }) =>
          `principals.${principal.name}.tools: '${name}' names no tool, alias or group of this registry, so it gives nothing${toolset ? ` (it is a toolset: list its tools, ${toolsetTools(index, toolset)}, instead)` : ''}`,
        ),
        // one tool's name and another's refused alias: the entry gives neither (review Z, Z1)
        ...PolicySet.of(index).contestedNames(principal.tools ?? []).map(({ name, claim }) => contestedMessage(`principals.${principal.name}.tools`, name, claim)),
      ]);
    },
  };
}

function toolsetTools(index: ToolIndex, name: string): string {
  const tools = index.toolsets.find((toolset) => toolset.name === name)?.tools ?? [];
  return tools.length ? tools.join(', ') : "'*'";
}
