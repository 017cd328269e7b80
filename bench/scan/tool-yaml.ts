/** A realistic definition: the size and shape of the starter tools. */
export function toolYaml(name: string, variant = 0): string {
  return `name: ${name}
display: 工具 ${name}
intent: 对 ${name} 执行一项操作并返回原始结果 (runs operation ${name} variant ${variant} and returns the raw result)
method: exec
executor: gatekeeper
params_schema:
  target: { type: string, required: true, description: "要操作的对象 (what to act on)" }
  limit: { type: integer, minimum: 1, maximum: 500, default: 10, description: "最多返回多少条 (at most this many)" }
  mode: { type: string, enum: [fast, full], default: fast, description: "模式 (mode)" }
constraints:
  timeout_ms: 30000
  max_output_bytes: 65536
  require_confirm: false
aliases: [${name}-alias, 别名${name}]
examples:
  - 帮我用 ${name} 处理一下
  - run ${name} on the target
author: BENCH-001
created: 2026-05-31
why: benchmark tool ${name}, generated to measure scanning at scale.
`;
}
