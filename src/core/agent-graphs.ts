// Agent graphs are built once per model and tool set: a channel that turns a tool group off gets
// a graph of its own, and every turn after reuses it.
import type { StructuredToolInterface } from '@langchain/core/tools';
import { type AgentGraph, buildAgentGraph } from '../agent/agent-graph.ts';

export class AgentGraphs {
  private readonly maxToolRounds: number;
  /** Built graphs by model, then by the tool set a channel allows. */
  private readonly graphs = new WeakMap<object, Map<string, AgentGraph>>();

  constructor(maxToolRounds: number) {
    this.maxToolRounds = maxToolRounds;
  }

  for(model: object, tools: StructuredToolInterface[]): AgentGraph {
    let byTools = this.graphs.get(model);
    if (!byTools) {
      byTools = new Map();
      this.graphs.set(model, byTools);
    }
    const names = tools.map((t) => t.name).join(',');
    let g = byTools.get(names);
    if (!g) {
      g = buildAgentGraph({
        model: model as Parameters<typeof buildAgentGraph>[0]['model'],
        tools,
        maxToolRounds: this.maxToolRounds,
      });
      byTools.set(names, g);
    }
    return g;
  }
}
