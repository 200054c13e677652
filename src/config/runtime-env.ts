/**
 * LangChain reads these from the environment, each callback handler when it is constructed: call
 * this before anything builds one (main.ts does, before it loads the app). Background callbacks run on a shared queue that can
 * observe another request's async context (ARCHITECTURE.md, "Invariants" 1: isolation), and
 * tracing would phone home (invariant 5): both off.
 */
export function applyLangChainEnvironment(): void {
  process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';
  process.env.LANGCHAIN_TRACING_V2 = 'false';
  process.env.LANGSMITH_TRACING = 'false';
}
