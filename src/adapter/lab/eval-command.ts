/**
 * `advisor-ledger eval`: the one command that calls models (docs/eval.md). It resolves the models
 * and keys the way Pi does, reads the sessions, draws the points, shows the estimate and asks,
 * sends each point's arms and the judge, writes every point as it comes, and prints the report.
 */

import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { DEFAULT_PRIVACY, type PrivacySettings } from "../../events/index.ts";
import type { CompleteSimple } from "../extension/pi/compat.ts";
import { errnoReason } from "../extension/pi/regular-file.ts";
import { DEFAULT_TOOLS_CONFIG } from "../extension/tools/index.ts";
import { type EvalArgs, EXIT } from "./cli/args.ts";
import { visible, visibleLine } from "./cli/escape.ts";
import { findHostPiAi } from "./cli/host-pi-ai.ts";
import type { UnreadableInput } from "./cli/inputs.ts";
import { collectInputs, displayPath, piSessionsDir, readInput } from "./cli/inputs.ts";
import type { Io } from "./cli/io.ts";
import { openRegistry } from "./cli/pi-registry.ts";
import { ARMS, type ArmName } from "./eval/arms.ts";
import { estimateRun, type PlannedPoint, planRun } from "./eval/eval-plan.ts";
import { type EvalSession, loadSession } from "./eval/eval-points.ts";
import { buildEvalReport } from "./eval/eval-report.ts";
import { blinding } from "./eval/judge.ts";
import { type ResolvedModel, resolveModel } from "./eval/models.ts";
import { createProgress } from "./eval/progress.ts";
import type { PointRecord } from "./eval/record.ts";
import { renderEstimate, renderEvalReport } from "./eval/report-text.ts";
import { runPoints } from "./eval/runner.ts";
import { type Budget, createBudget } from "./eval/spend-cap.ts";
import { type Fingerprint, openStore, type Store, sha256 } from "./eval/store.ts";

/** What a test replaces: the provider call, the confirmation, the privacy settings. */
export interface EvalDeps {
	complete?: CompleteSimple;
	/** Asks on the terminal; resolves true to go on. */
	confirm?: (question: string) => Promise<boolean>;
	/** stdin is a terminal: a question can be asked. */
	stdinIsTTY?: boolean;
	privacy?: PrivacySettings;
}

function say(io: Io, text: string): void {
	io.stderr(`advisor-ledger eval: ${visibleLine(text)}\n`);
}

async function askOnTerminal(question: string): Promise<boolean> {
	const rl = createInterface({ input: process.stdin, output: process.stderr });
	try {
		return /^y(es)?$/i.test((await rl.question(question)).trim());
	} finally {
		rl.close();
	}
}

type Step<T> = { ok: true; value: T } | { ok: false; code: number };

async function models(args: EvalArgs, io: Io): Promise<Step<{ advisor: ResolvedModel; judge: ResolvedModel }>> {
	const registry = openRegistry(io.env, true);
	if (registry.warning !== undefined) say(io, `models.json: ${registry.warning}`);
	const advisor = await resolveModel(registry, args.advisor);
	if (!advisor.ok) {
		say(io, `--advisor: ${advisor.error}`);
		return { ok: false, code: EXIT.usage };
	}
	if (args.judge === undefined) return { ok: true, value: { advisor: advisor.model, judge: advisor.model } };
	const judge = await resolveModel(registry, args.judge);
	if (!judge.ok) {
		say(io, `--judge: ${judge.error}`);
		return { ok: false, code: EXIT.usage };
	}
	return { ok: true, value: { advisor: advisor.model, judge: judge.model } };
}

interface Sessions {
	sessions: EvalSession[];
	unreadable: UnreadableInput[];
	inputs: Fingerprint["inputs"];
}

function readSessions(args: EvalArgs, io: Io): Sessions {
	const paths = args.paths.length > 0 ? args.paths : [piSessionsDir(io.env)];
	const collected = collectInputs(paths);
	const unreadable: UnreadableInput[] = collected.unreadable.map((u) => ({ ...u, path: displayPath(u.path, io.cwd) }));
	const sessions: EvalSession[] = [];
	const inputs: Fingerprint["inputs"] = [];
	for (const file of collected.files) {
		const shown = displayPath(file, io.cwd);
		const read = readInput(file);
		if (!read.ok) {
			unreadable.push({ path: shown, error: read.error });
			continue;
		}
		inputs.push({ file: shown, sha256: sha256(read.text) });
		sessions.push(loadSession(shown, read.text));
	}
	for (const u of unreadable) say(io, `skipped ${u.path}: ${u.error}`);
	return { sessions, unreadable, inputs };
}

/** What a resumed run already has: each arm and the judge of its records. */
function doneIn(store: Store): (point: PlannedPoint, step: ArmName | "judge") => boolean {
	return (point, step) => {
		const record = store.records.get(point.drawn.key);
		if (record === undefined) return false;
		if (step === "judge") return record.judge !== undefined || record.status === "failed";
		return record.arms[step] !== undefined || record.status === "failed";
	};
}

function spentIn(store: Store): number {
	let spent = 0;
	for (const r of store.records.values()) {
		for (const arm of ARMS) spent += r.arms[arm]?.billed.usd ?? 0;
		spent += (r.judge?.billed.usd ?? 0) + (r.abandoned?.usd ?? 0);
	}
	return spent;
}

async function confirmed(args: EvalArgs, io: Io, deps: EvalDeps, usd: string): Promise<boolean> {
	if (args.yes) return true;
	if (!(deps.stdinIsTTY ?? process.stdin.isTTY === true)) {
		say(io, "nothing was sent: run it on a terminal to confirm the estimate, or pass --yes");
		return false;
	}
	const ok = await (deps.confirm ?? askOnTerminal)(`Send these requests (about ${usd})? [y/N] `);
	if (!ok) say(io, "nothing was sent");
	return ok;
}

/** The provider call: the test's, else the pi-ai of an installed Pi (cli/host-pi-ai.ts); undefined after saying why not. */
async function providerCall(io: Io, deps: EvalDeps): Promise<CompleteSimple | undefined> {
	if (deps.complete !== undefined) return deps.complete;
	const found = await findHostPiAi(io.env);
	if (found.ok) return found.complete;
	say(io, found.error);
	return undefined;
}

export async function runEval(args: EvalArgs, io: Io, deps: EvalDeps = {}): Promise<number> {
	const complete = await providerCall(io, deps);
	if (complete === undefined) return EXIT.usage;
	const resolved = await models(args, io);
	if (!resolved.ok) return resolved.code;
	const { advisor, judge } = resolved.value;
	const privacy = deps.privacy ?? DEFAULT_PRIVACY;
	const read = readSessions(args, io);
	const exitCode = read.unreadable.length > 0 ? EXIT.unreadable : EXIT.ok;
	if (!read.sessions.some((s) => s.points.length > 0)) {
		say(io, "no consultation point in the sessions read (a point needs an advisor() call or a tool round)");
		return read.unreadable.length > 0 ? EXIT.unreadable : EXIT.nothingToReplay;
	}
	const out = resolve(io.cwd, args.out);
	const fingerprint: Fingerprint = {
		inputs: read.inputs,
		advisor: advisor.key,
		judge: judge.key,
		points: args.points,
		arms: args.arms,
		seed: args.seed,
	};
	const opened = openStore(out, fingerprint, args.resume);
	if (!opened.ok) {
		say(io, `--out: ${opened.error}`);
		return EXIT.usage;
	}
	const { store } = opened;
	const plan = planRun(
		read.sessions,
		{ count: args.points, arms: args.arms, seed: args.seed, privacy },
		advisor.model,
	);
	const estimate = estimateRun(plan.points, advisor.model, judge.model, doneIn(store));
	const drawn = { points: plan.points.length, asked: args.points, available: plan.available, tooLarge: plan.tooLarge };
	io.stderr(visible(renderEstimate(estimate, drawn, DEFAULT_TOOLS_CONFIG.maxRounds)));
	const requests = Object.values(estimate.arms).reduce((n, line) => n + line.requests, estimate.judge.requests);
	if (requests > 0 && !(await confirmed(args, io, deps, `$${estimate.usd.toFixed(3)}`))) return EXIT.notConfirmed;

	try {
		store.begin();
	} catch (error) {
		say(io, `--out: ${out}: ${errnoReason(error)}`);
		return EXIT.usage;
	}
	const budget: Budget = createBudget(args.maxUsd, spentIn(store));
	const progress = createProgress(io.stderr, io.stderrIsTTY, budget);
	let records: PointRecord[];
	try {
		records = await runPoints(plan.points, {
			advisor,
			judge,
			complete,
			budget,
			privacy,
			blind: blinding(args.arms, args.seed),
			store,
			onProgress: progress.onProgress,
		});
	} finally {
		progress.end();
	}
	const report = buildEvalReport({
		records,
		advisor: advisor.key,
		judge: judge.key,
		judgeIsAdvisor: args.judge === undefined,
		arms: args.arms,
		seed: args.seed,
		asked: args.points,
		tooLarge: plan.tooLarge,
		available: plan.available,
		stoppedByCap: budget.stopped,
		out: displayPath(out, io.cwd),
	});
	const text = renderEvalReport(report, {
		bold: (t) => t,
		dim: (t) => t,
		red: (t) => t,
		green: (t) => t,
		yellow: (t) => t,
	});
	store.writeReport("report.md", text);
	store.writeReport("report.json", `${JSON.stringify(report, null, 2)}\n`);
	if (args.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
	else io.stdout(visible(renderEvalReport(report, io.style)));
	return exitCode;
}
