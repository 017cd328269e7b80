import type { Diagnostic } from '../../core/index.js';
import type { DefinitionFile } from '../parse-tool-definition.js';

/** One folder under `tools/`, identified by the oid of its content. */
export interface ToolEntry {
  folder: string;
  /** changes whenever anything the definition depends on changes */
  oid: string;
}

/** What a source holds at one commit. */
export interface Snapshot {
  commit: string;
  /** set when the source could not be reached and this is what was last fetched */
  stale?: { reason: string; since: string };
  /** tool folders, sorted by folder name; listed on demand (a cached commit never needs the listing) */
  listEntries(): Promise<ToolEntry[]>;
  /** reads the entry's `TOOL.hdlp`, or explains why there is none */
  read(entry: ToolEntry): Promise<DefinitionFile | Diagnostic>;
}

/** A place tools are read from: a folder, a local git repository, or a remote over smart HTTP. */
export interface RepositorySource {
  /** shown to users; never holds credentials */
  readonly label: string;
  /** what the index cache is keyed by */
  readonly cacheKey: string;
  /** resolves the current commit and lists its tools */
  snapshot(): Promise<Snapshot>;
}

/** The path of a tool's definition inside the repository. */
export function definitionPath(folder: string): string {
  return `tools/${folder}/TOOL.hdlp`;
}
