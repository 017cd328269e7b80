/**
 * A load done once and shared by every caller, such as a module imported on first use. A load that failed is
 * forgotten, so the next caller tries again. If a rejected promise were kept, one transient failure (EMFILE while
 * the process is at its file limit, a module read while a deploy swapped the files) would disable that feature,
 * such as MCP or remote scans, until the process restarted.
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
