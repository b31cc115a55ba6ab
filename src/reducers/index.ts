export { completedAdvice, partsText, reviewAdvice } from "./advisor-result.ts";
export { foldAll, foldEvents } from "./fold.ts";
export * from "./state.ts";
