/**
 * A load done once and shared by every caller, such as a module imported on first use. A load that failed is
 * forgotten, so the next caller tries again: a rejected promise kept here would make every later MCP request or
 * remote scan fail the same way until the process restarted. What the retry can undo is Node's: a failure to find
 * or read the imported file itself is tried again, but Node 20 keeps a module whose own imports failed as failed
 * for the process's life (checked in review), so a failure deep in the MCP SDK still needs a restart.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
