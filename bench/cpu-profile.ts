/** V8's `.cpuprofile` (what `node --cpu-prof` writes), as far as the benchmarks' breakdown scripts read it. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
