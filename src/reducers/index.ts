export * from "./advisor-result.ts";
export * from "./branch.ts";
export * from "./fold.ts";
export * from "./hidden-work.ts";
export * from "./spend.ts";
export * from "./state.ts";
export * from "./trim-anchor.ts";
export * from "./facts.ts";
