/**
 * The judge (docs/eval.md): one blinded comparison per point. The answers go in under labels A,
 * B (and C) in an order drawn from the seed, so no arm sits in one place; the judge returns one
 * JSON object, checked against a TypeBox schema built for the point's labels. A reply that fails
 * the check is answered once with what was wrong; a second failure leaves the point unjudged.
 */

import type { UserMessage } from "@mariozechner/pi-ai";
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { isRecord, SEVERITIES, type Severity } from "../../../events/index.ts";
import { clip, JUDGE_INSTRUCTION, JUDGE_TAGS } from "../../../render/index.ts";
import type { ArmName } from "./arms.ts";
import { type Random, seededRandom, shuffled } from "./random.ts";

export const LABELS = ["A", "B", "C"] as const;
export type Label = (typeof LABELS)[number];

/** How long the user's request and the question may be in the judge's message (head and tail kept). */
export const JUDGE_TEXT_MAX_CHARS = 6000;

export type JudgedSeverity = Severity | "unclear";

/** Every ordering of `items`. */
function permutations<T>(items: readonly T[]): T[][] {
	if (items.length <= 1) return [[...items]];
	return items.flatMap((item, i) =>
		permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
	);
}

/**
 * The arms in label order (A first) for every point of a run: the orderings of the arms in a
 * shuffled cycle, so that over any run of k! consecutive points each arm is in each place equally
 * often (with two arms: A and B alternate), and which one starts comes from the seed.
 */
export function blinding(arms: readonly ArmName[], seed: string): (pointIndex: number) => ArmName[] {
	const random: Random = seededRandom(seed, "labels");
	const cycle = shuffled(permutations(arms), random);
	return (pointIndex) => [...cycle[pointIndex % cycle.length]!];
}

/** Closing tags of the judge's sections cannot appear inside one: `</answer>` becomes `‹/answer>`. */
export function defuse(text: string): string {
	const tags = Object.values(JUDGE_TAGS).join("|");
	return text.replace(new RegExp(`<(/?)(${tags})\\b`, "gi"), "‹$1$2");
}

function section(tag: string, text: string, attributes = ""): string {
	return `<${tag}${attributes}>\n${defuse(text)}\n</${tag}>`;
}

/** Every unordered pair of labels, as the instruction names them (`A–B`). */
export function labelPairs(labels: readonly Label[]): [Label, Label][] {
	const pairs: [Label, Label][] = [];
	for (let i = 0; i < labels.length; i++)
		for (let j = i + 1; j < labels.length; j++) pairs.push([labels[i]!, labels[j]!]);
	return pairs;
}

export interface JudgeInput {
	userRequest: string;
	question: string;
	/** Answers in label order. */
	answers: readonly string[];
}

/** The judge's one user message. */
export function judgeMessage(input: JudgeInput): UserMessage {
	const labels = LABELS.slice(0, input.answers.length);
	const parts = [
		section(JUDGE_TAGS.request, clip(input.userRequest, JUDGE_TEXT_MAX_CHARS)),
		section(JUDGE_TAGS.question, clip(input.question, JUDGE_TEXT_MAX_CHARS)),
		...input.answers.map((answer, i) => section(JUDGE_TAGS.answer, answer, ` label="${labels[i]}"`)),
		JUDGE_INSTRUCTION(labelPairs(labels).map(([a, b]) => `${a}–${b}`)),
	];
	return { role: "user", content: [{ type: "text", text: parts.join("\n") }], timestamp: 0 };
}

function verdictSchema(labels: readonly Label[]) {
	const label = Type.Union(labels.map((l) => Type.Literal(l)));
	const severity = Type.Union([...SEVERITIES, "unclear"].map((s) => Type.Literal(s)));
	return Type.Object({
		severities: Type.Object(Object.fromEntries(labels.map((l) => [l, severity])) as Record<Label, typeof severity>),
		sameVerdict: Type.Array(Type.Object({ answers: Type.Tuple([label, label]), agree: Type.Boolean() })),
		points: Type.Array(
			Type.Object({ answer: label, point: Type.String({ minLength: 1 }), lackedBy: Type.Array(label) }),
		),
		moreUseful: Type.Union([label, Type.Literal("tie")]),
	});
}

export type JudgeVerdict = Static<ReturnType<typeof verdictSchema>>;

export type JudgeParse = { ok: true; verdict: JudgeVerdict } | { ok: false; problem: string };

/** The reply's JSON: the whole text, or the body of the one code fence it is wrapped in. */
function jsonText(reply: string): string {
	const trimmed = reply.trim();
	const fenced = /^```[a-zA-Z]*\n([\s\S]*?)\n?```$/.exec(trimmed);
	return fenced !== null ? fenced[1]! : trimmed;
}

function firstError(schema: TSchema, value: unknown): string {
	// typebox 0.34 reports `path`, the 1.x that Pi aliases in reports `instancePath`.
	for (const error of Value.Errors(schema, value) as Iterable<unknown>) {
		const e = isRecord(error) ? error : {};
		const path = typeof e.path === "string" ? e.path : typeof e.instancePath === "string" ? e.instancePath : "";
		return `${path === "" ? "the object" : path} ${String(e.message)}`;
	}
	return "it does not match the shape";
}

/** What the schema cannot say: every pair judged, and no answer said to lack its own point. */
function semanticProblem(verdict: JudgeVerdict, labels: readonly Label[]): string | undefined {
	for (const [a, b] of labelPairs(labels)) {
		const found = verdict.sameVerdict.some(
			(p) => (p.answers[0] === a && p.answers[1] === b) || (p.answers[0] === b && p.answers[1] === a),
		);
		if (!found) return `sameVerdict has no entry for ${a}–${b}`;
	}
	const self = verdict.points.find((p) => p.lackedBy.includes(p.answer));
	if (self !== undefined) return `a point of ${self.answer} says ${self.answer} lacks it`;
	return undefined;
}

/** Parses and checks one judge reply for a point judged under `labels`. */
export function parseVerdict(reply: string, labels: readonly Label[]): JudgeParse {
	let value: unknown;
	try {
		value = JSON.parse(jsonText(reply));
	} catch {
		return { ok: false, problem: "it is not a JSON object" };
	}
	const schema = verdictSchema(labels);
	if (!Value.Check(schema, value)) return { ok: false, problem: firstError(schema, value) };
	const problem = semanticProblem(value, labels);
	return problem === undefined ? { ok: true, verdict: value } : { ok: false, problem };
}

/** The verdict with labels turned back into arms. */
export interface Unblinded {
	severities: Partial<Record<ArmName, JudgedSeverity>>;
	sameVerdict: { arms: [ArmName, ArmName]; agree: boolean }[];
	points: { arm: ArmName; point: string; lackedBy: ArmName[] }[];
	moreUseful: ArmName | "tie";
}

export function unblind(verdict: JudgeVerdict, order: readonly ArmName[]): Unblinded {
	const arm = (label: Label): ArmName => order[LABELS.indexOf(label)]!;
	const severities: Partial<Record<ArmName, JudgedSeverity>> = {};
	for (const label of LABELS.slice(0, order.length))
		severities[arm(label)] = verdict.severities[label] as JudgedSeverity;
	return {
		severities,
		sameVerdict: verdict.sameVerdict.map((p) => ({ arms: [arm(p.answers[0]), arm(p.answers[1])], agree: p.agree })),
		points: verdict.points.map((p) => ({ arm: arm(p.answer), point: p.point, lackedBy: p.lackedBy.map(arm) })),
		moreUseful: verdict.moreUseful === "tie" ? "tie" : arm(verdict.moreUseful),
	};
}
