/**
 * Every property runs from one seed, so the suite does the same work on every run and under any load
 * (a random seed once turned up, in one run of thousands, a generated compaction no Pi makes). Set
 * FC_SEED to explore other seeds, FC_RUNS for more runs (docs/architecture.md, "Testing").
 */
import fc from "fast-check";

const seed = process.env.FC_SEED === undefined ? 20261204 : Number(process.env.FC_SEED);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
