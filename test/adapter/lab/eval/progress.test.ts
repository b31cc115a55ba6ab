// The eval's progress on stderr: a bar redrawn in place on a terminal, plain lines otherwise.
import { describe, expect, it } from "vitest";
import type { PlannedPoint } from "../../../../src/adapter/lab/eval/eval-plan.ts";
import { bar, createProgress } from "../../../../src/adapter/lab/eval/progress.ts";
import type { PointRecord } from "../../../../src/adapter/lab/eval/record.ts";
import { createBudget } from "../../../../src/adapter/lab/eval/spend-cap.ts";

const point = { index: 1, drawn: { key: "a.jsonl#e1\u001b[31m" } } as unknown as PlannedPoint;
const record = { index: 1, status: "judged", key: "a.jsonl#e1" } as PointRecord;

describe("eval progress", () => {
	it("draws a bar of done points", () => {
		expect(bar(0, 4, 8)).toBe("[░░░░░░░░]");
		expect(bar(1, 4, 8)).toBe("[██░░░░░░]");
		expect(bar(4, 4, 8)).toBe("[████████]");
	});

	it("on a terminal: one line redrawn with \\r, the spend so far, escaped names, cleared at the end", () => {
		const out: string[] = [];
		const budget = createBudget(undefined, 0.25);
		const progress = createProgress((t) => out.push(t), true, budget);
		progress.onProgress({ kind: "point", point, total: 2 });
		progress.onProgress({ kind: "step", point, step: "ledger", total: 2 });
		progress.onProgress({ kind: "done", record, total: 2 });
		progress.end();
		expect(out).toEqual([
			`\r\u001b[K[${"░".repeat(20)}] 0/2 · $0.250 · point 1: a.jsonl#e1\\x1b[31m`,
			`\r\u001b[K[${"░".repeat(20)}] 0/2 · $0.250 · point 1: ledger`,
			`\r\u001b[K[${"█".repeat(10)}${"░".repeat(10)}] 1/2 · $0.250 · point 1: judged`,
			"\r\u001b[K",
		]);
	});

	it("elsewhere: one plain line per finished point, nothing to clear", () => {
		const out: string[] = [];
		const progress = createProgress((t) => out.push(t), false, createBudget(undefined));
		progress.onProgress({ kind: "point", point, total: 2 });
		progress.onProgress({ kind: "done", record, total: 2 });
		progress.end();
		expect(out).toEqual(["advisor-ledger eval: 1/2 judged a.jsonl#e1 ($0.000 so far)\n"]);
	});
});
