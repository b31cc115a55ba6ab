/**
 * The one immer instance every fold uses. No auto-freeze: events can hold objects the live Pi host
 * owns (tool arguments, details), which must not be frozen under it, and skipping the freeze keeps
 * an incremental fold O(new events). Nothing is mutated once made: what a fold keeps and reads back
 * is held as values immer does not draft (case-reducers.ts), and a property test folds twice from one
 * state and finds it as it was.
 */

import { enableMapSet, Immer } from "immer";

export type { Draft } from "immer";

// The facts fold keeps maps (facts.ts); immer drafts them only with its map-and-set plugin.
enableMapSet();

const immer = new Immer({ autoFreeze: false });

export const produce: Immer["produce"] = immer.produce;
