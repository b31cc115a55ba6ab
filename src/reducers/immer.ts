/**
 * The one immer instance every fold uses. No auto-freeze: events can hold objects the live Pi host
 * owns (tool arguments, details), which must not be frozen under it, and skipping the freeze keeps
 * an incremental fold O(new events). Blocks are still never mutated once made; a test checks that
 * folding leaves its input untouched.
 */

import { Immer } from "immer";

export { current, type Draft, isDraft, original } from "immer";

const immer = new Immer({ autoFreeze: false });

export const produce: Immer["produce"] = immer.produce;
