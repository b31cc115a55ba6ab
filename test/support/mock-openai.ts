// The scripted OpenAI-compatible server lives in scripts/mock-openai.ts, shared with `npm run demo`
// (scripts/demo.ts); the tests import it from here as they always have.
export * from "../../scripts/mock-openai.ts";
