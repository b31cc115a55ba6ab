/**
 * Every property runs from one seed, so the suite does the same work on every run and under any load
 * (a random seed once turned up, in one run of thousands, a generated compaction no Pi makes). Set
 * FC_SEED to explore other seeds, FC_RUNS for more runs; `npm run test:seeds` runs every property
 * from a random seed (docs/architecture.md, "Testing").
 */
import fc from "fast-check";

const seed = process.env.FC_SEED === undefined ? 20261204 : Number(process.env.FC_SEED);
// FC_RUNS for every property; those that set their own count read it too (session-gen.ts RUNS).
const runs = process.env.FC_RUNS === undefined ? {} : { numRuns: Number(process.env.FC_RUNS) };
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed, ...runs });
