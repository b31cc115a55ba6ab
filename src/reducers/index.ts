export * from "./advisor-result.ts";
export * from "./branch.ts";
export * from "./hidden-work.ts";
export * from "./ledger-fold.ts";
export * from "./ledger-state.ts";
export * from "./spend.ts";
export * from "./trim-anchor.ts";
