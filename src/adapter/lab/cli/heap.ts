/**
 * How far the CLI's heap may grow between full collections (docs/decisions.md, "A replay's memory
 * follows the branch"). V8 lets the heap reach several times what was live at its last full
 * collection before it collects again; a replay or render of a long session allocates fast, so that
 * headroom, not what is live, made most of its peak. A growing factor of 1.5 cuts the peak of a
 * 200,000-entry render by about a quarter for about a tenth more time. Only the CLI sets it, once, at
 * its start: the extension never touches the heap of the Pi it runs in.
 */

import { setFlagsFromString } from "node:v8";

export const HEAP_GROWING_PERCENT = 50;

const FLAG = /--heap[-_]growing[-_]percent\b/;

/** The flag to set, or undefined when the user already chose one (on the command line or in NODE_OPTIONS). */
export function heapGrowthFlag(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
	if (execArgv.some((a) => FLAG.test(a)) || FLAG.test(nodeOptions ?? "")) return undefined;
	return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Sets the growing factor for this process, unless the user set one. */
export function boundHeapGrowth(): void {
	const flag = heapGrowthFlag(process.execArgv, process.env.NODE_OPTIONS);
	if (flag !== undefined) setFlagsFromString(flag);
}
