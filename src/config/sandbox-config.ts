import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { formatByteSize, parseByteSize, type SandboxCeiling } from '../core/index.js';
import type { SandboxMode } from '../sandbox/index.js';
import { ConfigError } from './gateway-config.js';

/** `sandbox:` as written: a mode, or the mode with what the operator adds to it. */
export type WrittenSandbox =
  | SandboxMode
  | {
      mode?: SandboxMode;
      hide?: string[];
      run_as?: string | { uid: number; gid: number };
      ceiling?: {
        network?: boolean;
        unix_sockets?: boolean;
        memory?: number | string;
        cpu_seconds?: number;
        processes?: number;
        file_size?: number | string;
        writable_roots?: string[];
        readable_roots?: string[];
      };
    };

/** The sandbox's settings from the config file: its mode, the paths the operator hides, the ceiling of definitions. */
export interface SandboxSettings {
  mode?: SandboxMode;
  hide: string[];
  ceiling?: SandboxCeiling;
  /** who a root gateway's tools run as: a user's name or {uid, gid}; absent: nobody */
  runAs?: string | { uid: number; gid: number };
}

/** Reads `sandbox:`; paths are made absolute from `base` (the config file's folder), `~/` from the home folder. */
export function sandboxSettings(written: WrittenSandbox | undefined, base: string): SandboxSettings {
  if (written === undefined) return { hide: [] };
  if (typeof written === 'string') return { mode: written, hide: [] };
  const absolute = (path: string): string => (path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : isAbsolute(path) ? resolve(path) : resolve(base, path));
  const hide = (written.hide ?? []).map(absolute);
  const settings: SandboxSettings = { ...(written.mode ? { mode: written.mode } : {}), hide, ...(written.run_as !== undefined ? { runAs: written.run_as } : {}) };
  const ceiling = written.ceiling;
  if (ceiling === undefined) return settings;
  const size = (key: 'memory' | 'file_size', minimum: number): number | undefined => {
    const text = ceiling[key];
    if (text === undefined) return undefined;
    const bytes = parseByteSize(text);
    if (bytes === undefined || bytes < minimum) throw new ConfigError(`sandbox.ceiling.${key}`, `must be a size of at least ${formatByteSize(minimum)} (bytes, or a string such as 512MiB), got '${text}'`);
    return bytes;
  };
  const memory = size('memory', 16 * 1024 * 1024);
  const fileSize = size('file_size', 1);
  const limits = {
    ...(memory !== undefined ? { memory } : {}),
    ...(ceiling.cpu_seconds !== undefined ? { cpu_seconds: ceiling.cpu_seconds } : {}),
    ...(ceiling.processes !== undefined ? { processes: ceiling.processes } : {}),
    ...(fileSize !== undefined ? { file_size: fileSize } : {}),
  };
  settings.ceiling = {
    ...(ceiling.network !== undefined ? { network: ceiling.network } : {}),
    ...(ceiling.unix_sockets !== undefined ? { unixSockets: ceiling.unix_sockets } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(ceiling.writable_roots ? { writableRoots: ceiling.writable_roots.map(absolute) } : {}),
    ...(ceiling.readable_roots ? { readableRoots: ceiling.readable_roots.map(absolute) } : {}),
  };
  return settings;
}
