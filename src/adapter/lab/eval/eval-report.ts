/**
 * The eval's report (docs/eval.md): from the point records, per arm compared with the full
 * context — how often the Severity lines agree, how often the judge finds the same verdict, how
 * often one answer lacks a material point the other makes, which it finds more useful — each rate
 * with its 95% Wilson interval, and what every arm and the judge cost as billed.
 */

import type { ArmName } from "./arms.ts";
import { addBilled, type BilledRequests, emptyBilled } from "./billed-requests.ts";
import type { PointRecord } from "./record.ts";

export const EVAL_REPORT_VERSION = 1;

/** z for a two-sided 95% interval. */
const Z95 = 1.959964;

export interface Rate {
	count: number;
	of: number;
	/** count / of; null when of = 0. */
	rate: number | null;
	/** 95% Wilson score interval; null when of = 0. */
	interval: { low: number; high: number } | null;
}

/** The Wilson score interval: well-behaved at small n and at rates near 0 or 1, where p ± 1.96·SE is not. */
export function wilson(count: number, of: number, z: number = Z95): { low: number; high: number } | null {
	if (of <= 0) return null;
	const p = count / of;
	const z2 = z * z;
	const denominator = 1 + z2 / of;
	const center = (p + z2 / (2 * of)) / denominator;
	const half = (z * Math.sqrt((p * (1 - p)) / of + z2 / (4 * of * of))) / denominator;
	return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

export function rate(count: number, of: number): Rate {
	return { count, of, rate: of > 0 ? count / of : null, interval: wilson(count, of) };
}

/** One arm against the full context. */
export interface Comparison {
	arm: ArmName;
	against: "full";
	/** Points where both answered with a Severity line: how many name the same level. */
	severityAgreement: Rate;
	/** Judged points: how many the judge says give the same verdict. */
	verdictAgreement: Rate;
	/** Judged points where the full context's answer makes a material point this arm's lacks. */
	armLacks: Rate;
	/** Judged points where this arm's answer makes a material point the full context's lacks. */
	fullLacks: Rate;
	/** Judged points by the answer the judge found more useful (another arm's, with three arms: other). */
	moreUseful: { arm: number; full: number; tie: number; other: number };
}

export interface EvalReport {
	version: typeof EVAL_REPORT_VERSION;
	advisor: string;
	judge: string;
	/** No --judge was given: the advisor model judged. */
	judgeIsAdvisor: boolean;
	arms: ArmName[];
	seed: string;
	points: {
		/** Asked for (--points). */
		asked: number;
		/** Drawn and planned (fewer when the sessions hold fewer that fit). */
		planned: number;
		judged: number;
		unjudged: number;
		failed: number;
		/** Not complete: --max-usd stopped the run first. */
		notSent: number;
		/** Drawn and skipped: too large for the advisor's context window. */
		tooLarge: number;
		/** Consultation points found in the sessions. */
		available: number;
		real: number;
		simulated: number;
	};
	comparisons: Comparison[];
	cost: {
		arms: Partial<Record<ArmName, BilledRequests>>;
		judge: BilledRequests;
		abandoned: BilledRequests;
		total: BilledRequests;
	};
	stoppedByCap: boolean;
	out: string;
}

function lacks(record: PointRecord, arm: ArmName, other: ArmName): boolean {
	return record.judge?.verdict?.points.some((p) => p.arm === other && p.lackedBy.includes(arm)) === true;
}

function compare(records: readonly PointRecord[], arm: ArmName): Comparison {
	const both = records.filter((r) => r.arms[arm]?.severity != null && r.arms.full?.severity != null);
	const judged = records.filter((r) => r.status === "judged" && r.judge?.verdict !== undefined);
	const same = judged.filter((r) =>
		r.judge!.verdict!.sameVerdict.some((p) => p.arms.includes(arm) && p.arms.includes("full") && p.agree),
	);
	const useful = { arm: 0, full: 0, tie: 0, other: 0 };
	for (const r of judged) {
		const choice = r.judge!.verdict!.moreUseful;
		if (choice === arm) useful.arm++;
		else if (choice === "full") useful.full++;
		else if (choice === "tie") useful.tie++;
		else useful.other++;
	}
	return {
		arm,
		against: "full",
		severityAgreement: rate(both.filter((r) => r.arms[arm]!.severity === r.arms.full!.severity).length, both.length),
		verdictAgreement: rate(same.length, judged.length),
		armLacks: rate(judged.filter((r) => lacks(r, arm, "full")).length, judged.length),
		fullLacks: rate(judged.filter((r) => lacks(r, "full", arm)).length, judged.length),
		moreUseful: useful,
	};
}

function costOf(records: readonly PointRecord[], arms: readonly ArmName[]): EvalReport["cost"] {
	const cost: EvalReport["cost"] = { arms: {}, judge: emptyBilled(), abandoned: emptyBilled(), total: emptyBilled() };
	for (const arm of arms) cost.arms[arm] = emptyBilled();
	for (const r of records) {
		for (const arm of arms) {
			const outcome = r.arms[arm];
			if (outcome !== undefined) cost.arms[arm] = addBilled(cost.arms[arm]!, outcome.billed);
		}
		if (r.judge !== undefined) cost.judge = addBilled(cost.judge, r.judge.billed);
		if (r.abandoned !== undefined) cost.abandoned = addBilled(cost.abandoned, r.abandoned);
	}
	cost.total = [...Object.values(cost.arms), cost.judge, cost.abandoned].reduce(addBilled, emptyBilled());
	return cost;
}

export interface ReportInput {
	records: readonly PointRecord[];
	advisor: string;
	judge: string;
	judgeIsAdvisor: boolean;
	arms: readonly ArmName[];
	seed: string;
	asked: number;
	tooLarge: number;
	available: number;
	stoppedByCap: boolean;
	out: string;
}

export function buildEvalReport(input: ReportInput): EvalReport {
	const { records } = input;
	const count = (status: PointRecord["status"]) => records.filter((r) => r.status === status).length;
	return {
		version: EVAL_REPORT_VERSION,
		advisor: input.advisor,
		judge: input.judge,
		judgeIsAdvisor: input.judgeIsAdvisor,
		arms: [...input.arms],
		seed: input.seed,
		points: {
			asked: input.asked,
			planned: records.length,
			judged: count("judged"),
			unjudged: count("unjudged"),
			failed: count("failed"),
			notSent: count("stopped"),
			tooLarge: input.tooLarge,
			available: input.available,
			real: records.filter((r) => r.kind === "advisor").length,
			simulated: records.filter((r) => r.kind === "simulated").length,
		},
		comparisons: input.arms.filter((arm) => arm !== "full").map((arm) => compare(records, arm)),
		cost: costOf(records, input.arms),
		stoppedByCap: input.stoppedByCap,
		out: input.out,
	};
}
