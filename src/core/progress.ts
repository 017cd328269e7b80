/** How far a running call has got, as its executor heard it (an MCP server's `notifications/progress`). */
export interface ProgressUpdate {
  /** grows with each update; its unit is the tool's own */
  progress: number;
  /** the value `progress` reaches at the end, when known */
  total?: number;
  message?: string;
}
