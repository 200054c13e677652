import type { StructuredToolInterface } from '@langchain/core/tools';

/**
 * The agent's tools. Features register theirs at start-up; every tool takes intent arguments only
 * (query, filename, prompt) and reads who is asking from the turn scope (src/scope).
 */
export class ToolRegistry {
  private readonly tools = new Map<string, StructuredToolInterface>();

  register(tool: StructuredToolInterface): this {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  list(): StructuredToolInterface[] {
    return [...this.tools.values()];
  }

  get size(): number {
    return this.tools.size;
  }
}
