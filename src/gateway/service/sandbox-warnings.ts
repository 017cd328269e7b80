import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { workspaceConflict, type SandboxStatus } from '../../sandbox/index.js';

/** What an operator must hear at start about this host's sandbox: each a line, empty when everything holds. */
export function sandboxWarnings(status: SandboxStatus | undefined): string[] {
  const warnings: string[] = [];
  if (!status) return warnings;
  if (status.sandbox === 'off') {
    if (status.mode === 'required') {
      warnings.push(`sandbox: required, but it cannot run here, so every shell tool and gatekeeper exec call fails with SANDBOX_UNAVAILABLE: ${status.reason}`);
    } else {
      warnings.push(`sandbox: off. Local tools run unisolated, as this gateway's user: they can read what it reads (its files, and its environment through /proc where a run cannot have a /proc of its own) and reach any address. ${status.reason}`);
    }
  }
  if (status.containmentReason) warnings.push(`process containment: ${status.containmentReason}`);
  if (status.limits.reason) warnings.push(`resource limits: ${status.limits.reason}`);
  if (status.runAsReason) warnings.push(`run_as: ${status.runAsReason}`);
  if (status.seccompReason) warnings.push(`sandbox: every shell tool, gatekeeper exec and stdio MCP server call fails with SANDBOX_UNAVAILABLE: ${status.seccompReason}`);
  if (status.setupReason) warnings.push(`sandbox: ${status.setupReason}`);
  return warnings;
}

/**
 * What an operator must hear at start about the workspace, each a line naming the setting to change: one no local tool
 * or file method runs in (a home folder, `/`: review N, N19), or this package's own checkout (the quick start run in
 * it: tools' files land in the checkout, whose entries are read-only to them; review N, N18). `setting` names where
 * the workspace comes from.
 */
export function workspaceWarnings(workspace: string, packageRoot: string, setting = 'workspace_root (or HLDP_WORKSPACE)', runAs?: SandboxStatus['runAs']): string[] {
  const real = realOrGiven(workspace);
  const conflict = workspaceConflict(real);
  if (conflict !== undefined) return [`workspace: ${conflict}: every local tool and file method (file-read, file-write) is refused there; set ${setting} to a project's folder`];
  if (real !== realOrGiven(packageRoot)) return [];
  // a root gateway's tools run as another user, and a git working tree is never given to it (review O, O9): the quick
  // start as root said tools write into the checkout, where every write failed (review R, R14)
  const owner = ownerOf(real);
  if (runAs !== undefined && runAs.uid !== 0 && owner !== undefined && owner !== runAs.uid && existsSync(join(real, '.git'))) {
    return [`workspace: ${real} is this gateway's own checkout (the workspace defaults to the current folder): tools run as ${runAs.name ?? `uid ${runAs.uid}`} (sandbox.run_as), and a git working tree stays its owner's (uid ${owner}), so they cannot write in it; set ${setting} to a folder of their own`];
  }
  return [`workspace: ${real} is this gateway's own checkout (the workspace defaults to the current folder): tools write their files into it, and its entries are read-only to them; set ${setting} to another folder`];
}

function ownerOf(path: string): number | undefined {
  try {
    return statSync(path).uid;
  } catch {
    return undefined;
  }
}

function realOrGiven(path: string): string {
  try {
    return realpathSync(path).replace(/\/$/, '');
  } catch {
    return resolve(path).replace(/(.)\/$/, '$1');
  }
}
