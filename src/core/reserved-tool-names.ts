/**
 * The names the gateway answers itself: its meta-tools, listed before the registry's tools over MCP and answered by
 * name in an HTTP session. A registry tool (or alias) of one of these names would be shadowed there while a call without
 * a session reached it, so the scanner refuses them (`RESERVED_NAME`); `export`'s `META_TOOLS` must name exactly these.
 */
export const RESERVED_TOOL_NAMES: readonly string[] = ['toolset', 'tool_find', 'tool_load', 'tool_call', 'read_skill', 'confirm', 'approval_wait'];
