/**
 * Progress of an eval on stderr: on a terminal, one bar redrawn in place (`\r`, cleared at the
 * end); otherwise one plain line per finished point, which a log or CI keeps readable.
 */

import { assertNever } from "../../../events/index.ts";
import { formatUsd } from "../../../policy/index.ts";
import { visibleLine } from "../cli/escape.ts";
import type { ProgressEvent } from "./runner.ts";
import type { Budget } from "./spend-cap.ts";

const BAR_WIDTH = 20;
const LINE_MAX = 110;

export interface Progress {
	onProgress(event: ProgressEvent): void;
	/** Clears the bar (a terminal) before the report is printed. */
	end(): void;
}

export function bar(done: number, total: number, width: number = BAR_WIDTH): string {
	const filled = total <= 0 ? width : Math.round((Math.min(done, total) / total) * width);
	return `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
}

export function createProgress(write: (text: string) => void, isTTY: boolean, budget: Budget): Progress {
	let done = 0;
	let drawn = false;
	const draw = (total: number, what: string) => {
		const line = `${bar(done, total)} ${done}/${total} · ${formatUsd(budget.spent)} · ${visibleLine(what)}`;
		write(`\r\u001b[K${line.length > LINE_MAX ? `${line.slice(0, LINE_MAX - 1)}…` : line}`);
		drawn = true;
	};
	return {
		onProgress(event) {
			switch (event.kind) {
				case "point":
					if (isTTY) draw(event.total, `point ${event.point.index}: ${event.point.drawn.key}`);
					return;
				case "step":
					if (isTTY) draw(event.total, `point ${event.point.index}: ${event.step}`);
					return;
				case "done":
					done++;
					if (isTTY) draw(event.total, `point ${event.record.index}: ${event.record.status}`);
					else
						write(
							`advisor-ledger eval: ${done}/${event.total} ${event.record.status} ${visibleLine(event.record.key)} (${formatUsd(budget.spent)} so far)\n`,
						);
					return;
				default:
					return assertNever(event, "eval progress event");
			}
		},
		end() {
			if (drawn) write("\r\u001b[K");
		},
	};
}
