/**
 * Command-line parsing for `advisor-ledger`. Small on purpose: two commands, a handful of flags,
 * `--flag value` and `--flag=value`, `--` ends the flags. Anything unexpected is a UsageError
 * (exit code 1) with a message that names the problem.
 */

import {
	DEFAULT_EVAL_OUT,
	DEFAULT_EVERY,
	DEFAULT_POINTS,
	DEFAULT_SEED,
	EVAL_HELP,
	MAIN_HELP,
	RENDER_HELP,
	REPLAY_HELP,
	STATS_HELP,
} from "./help.ts";

export const EXIT = Object.freeze({
	ok: 0,
	usage: 1,
	nothingToReplay: 2,
	unreadable: 3,
	/** eval: the user did not confirm the estimate. */
	notConfirmed: 4,
});

/** A usage error; `command` names the command it concerns (absent: the command line as a whole). */
export class UsageError extends Error {
	constructor(
		message: string,
		readonly command?: string,
	) {
		super(message);
	}
}

/** Every line the CLI writes on stderr starts so: `advisor-ledger <command>: ` or `advisor-ledger: `. */
export function errorPrefix(command?: string): string {
	return command === undefined ? "advisor-ledger: " : `advisor-ledger ${command}: `;
}

const EVAL_ARMS = ["ledger", "full", "masked"] as const;
export type EvalArm = (typeof EVAL_ARMS)[number];

export interface EvalArgs {
	command: "eval";
	paths: string[];
	advisor: string;
	/** undefined = the advisor model. */
	judge: string | undefined;
	points: number;
	/** In the order ledger, full, masked. */
	arms: EvalArm[];
	/** undefined = no cap. */
	maxUsd: number | undefined;
	yes: boolean;
	out: string;
	resume: boolean;
	seed: string;
	json: boolean;
}

export interface ReplayArgs {
	command: "replay";
	paths: string[];
	every: number;
	allLeaves: boolean;
	/** Also replay the watch, as if it had been on (docs/cli.md, "replay --watch"). */
	watch: boolean;
	json: boolean;
	/** The text report's per-session columns in one table, as wide as it needs (default: within 100 columns). */
	wide: boolean;
	svg: string | undefined;
	/** `provider/model` of pi-ai's registry; undefined = the default. */
	price: string | undefined;
	/** `--config FILE`; undefined = the user's advisor.json. */
	config: string | undefined;
	/** Write outputs even where the output guard refuses (cli/output-guard.ts). */
	force: boolean;
}

export interface RenderArgs {
	command: "render";
	file: string;
	leaf: string | undefined;
	at: string | undefined;
	json: boolean;
	/** `--facts`: run the fact audit and report it (request/render-at.ts). */
	facts: boolean;
	/** `--config FILE`; undefined = the user's advisor.json. */
	config: string | undefined;
}

export interface StatsArgs {
	command: "stats";
	paths: string[];
	json: boolean;
}

export type ParsedArgs =
	| ReplayArgs
	| RenderArgs
	| StatsArgs
	| EvalArgs
	| { command: "help"; text: string }
	| { command: "version" };

interface FlagSpec {
	/** Takes a value, shown so in usage lines (`--every N`); absent: a switch. */
	value?: string;
}

/** Each command's flags (besides -h/--help), in the order its usage lists them. */
export const COMMAND_FLAGS = {
	replay: {
		"--every": { value: "N" },
		"--all-leaves": {},
		"--watch": {},
		"--json": {},
		"--wide": {},
		"--svg": { value: "FILE" },
		"--force": {},
		"--price": { value: "PROVIDER/MODEL" },
		"--config": { value: "FILE" },
	},
	render: {
		"--leaf": { value: "ID" },
		"--at": { value: "ENTRY" },
		"--json": {},
		"--facts": {},
		"--config": { value: "FILE" },
	},
	stats: { "--json": {} },
	eval: {
		"--advisor": { value: "PROVIDER/MODEL" },
		"--judge": { value: "PROVIDER/MODEL" },
		"--points": { value: "N" },
		"--arms": { value: "LIST" },
		"--max-usd": { value: "X" },
		"--yes": {},
		"--out": { value: "DIR" },
		"--resume": {},
		"--seed": { value: "S" },
		"--json": {},
	},
} as const satisfies Record<string, Record<string, FlagSpec>>;

export type CommandName = keyof typeof COMMAND_FLAGS;

/**
 * Flags that cannot be honoured together, and flags that do something only beside another: given
 * anyway, one would be ignored without a word (docs/cli.md, "Running it").
 */
const CONFLICTS: Partial<Record<CommandName, readonly (readonly [string, string, string])[]>> = {
	replay: [["--json", "--wide", "--wide shapes the text report, which --json replaces"]],
};
const NEEDS: Partial<Record<CommandName, readonly (readonly [string, string, string])[]>> = {
	replay: [["--force", "--svg", "it lets --svg write over a file that is not an SVG"]],
};

function checkCombinations(flags: Map<string, string | true>, command: CommandName): void {
	for (const [a, b, why] of CONFLICTS[command] ?? []) {
		if (flags.has(a) && flags.has(b)) throw new UsageError(`${a} and ${b} cannot be used together: ${why}`, command);
	}
	for (const [flag, needed, why] of NEEDS[command] ?? []) {
		if (flags.has(flag) && !flags.has(needed)) throw new UsageError(`${flag} needs ${needed}: ${why}`, command);
	}
}

interface Scanned {
	positional: string[];
	flags: Map<string, string | true>;
	help: boolean;
}

function scan(argv: readonly string[], command: CommandName): Scanned {
	const specs: Record<string, FlagSpec> = COMMAND_FLAGS[command];
	const positional: string[] = [];
	const flags = new Map<string, string | true>();
	let help = false;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i]!;
		if (arg === "--") {
			positional.push(...argv.slice(i + 1));
			break;
		}
		if (arg === "-h" || arg === "--help") {
			help = true;
			continue;
		}
		if (!arg.startsWith("-") || arg === "-") {
			positional.push(arg);
			continue;
		}
		const eq = arg.indexOf("=");
		const name = eq === -1 ? arg : arg.slice(0, eq);
		const spec = specs[name];
		if (spec === undefined) throw new UsageError(`unknown option ${name}`, command);
		if (flags.has(name)) throw new UsageError(`${name} given twice`, command);
		if (spec.value === undefined) {
			if (eq !== -1) throw new UsageError(`${name} takes no value`, command);
			flags.set(name, true);
			continue;
		}
		let value: string | undefined;
		if (eq !== -1) value = arg.slice(eq + 1);
		else {
			value = argv[i + 1];
			i++;
		}
		if (value === undefined || value === "") throw new UsageError(`${name} needs a value`, command);
		flags.set(name, value);
	}
	// --help wins: usage is what was asked for.
	if (!help) checkCombinations(flags, command);
	return { positional, flags, help };
}

function stringFlag(flags: Map<string, string | true>, name: string): string | undefined {
	const value = flags.get(name);
	return typeof value === "string" ? value : undefined;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
	const [command, ...rest] = argv;
	if (command === undefined || command === "-h" || command === "--help" || command === "help") {
		if (command === "help" && rest[0] === "replay") return { command: "help", text: REPLAY_HELP };
		if (command === "help" && rest[0] === "render") return { command: "help", text: RENDER_HELP };
		if (command === "help" && rest[0] === "stats") return { command: "help", text: STATS_HELP };
		if (command === "help" && rest[0] === "eval") return { command: "help", text: EVAL_HELP };
		return { command: "help", text: MAIN_HELP };
	}
	if (command === "--version" || command === "-V" || command === "-v") {
		if (rest.length > 0) throw new UsageError(`${command} takes no arguments`);
		return { command: "version" };
	}
	switch (command) {
		case "replay": {
			const s = scan(rest, "replay");
			if (s.help) return { command: "help", text: REPLAY_HELP };
			const everyText = stringFlag(s.flags, "--every");
			let every = DEFAULT_EVERY;
			if (everyText !== undefined) {
				if (!/^[0-9]+$/.test(everyText) || Number(everyText) < 1) {
					throw new UsageError(`--every needs a whole number ≥ 1, got ${JSON.stringify(everyText)}`, "replay");
				}
				every = Number(everyText);
			}
			const price = stringFlag(s.flags, "--price");
			if (price !== undefined && !/^[^/]+\/.+$/.test(price)) {
				throw new UsageError(`--price needs provider/model, got ${JSON.stringify(price)}`, "replay");
			}
			return {
				command: "replay",
				paths: s.positional,
				every,
				allLeaves: s.flags.has("--all-leaves"),
				watch: s.flags.has("--watch"),
				json: s.flags.has("--json"),
				wide: s.flags.has("--wide"),
				svg: stringFlag(s.flags, "--svg"),
				price,
				config: stringFlag(s.flags, "--config"),
				force: s.flags.has("--force"),
			};
		}
		case "render": {
			const s = scan(rest, "render");
			if (s.help) return { command: "help", text: RENDER_HELP };
			if (s.positional.length !== 1) {
				throw new UsageError(
					s.positional.length === 0 ? "a session FILE is required" : "exactly one FILE is expected",
					"render",
				);
			}
			return {
				command: "render",
				file: s.positional[0]!,
				leaf: stringFlag(s.flags, "--leaf"),
				at: stringFlag(s.flags, "--at"),
				json: s.flags.has("--json"),
				facts: s.flags.has("--facts"),
				config: stringFlag(s.flags, "--config"),
			};
		}
		case "stats": {
			const s = scan(rest, "stats");
			if (s.help) return { command: "help", text: STATS_HELP };
			return { command: "stats", paths: s.positional, json: s.flags.has("--json") };
		}
		case "eval":
			return parseEval(rest);
		default:
			throw new UsageError(`unknown command ${JSON.stringify(command)} (expected replay, render, stats or eval)`);
	}
}

const MODEL_KEY = /^[^/:\s]+[/:].+$/;

function modelFlag(flags: Map<string, string | true>, name: string): string | undefined {
	const value = stringFlag(flags, name);
	if (value !== undefined && !MODEL_KEY.test(value)) {
		throw new UsageError(`${name} needs provider/model, got ${JSON.stringify(value)}`, "eval");
	}
	return value;
}

function parseArms(text: string | undefined): EvalArm[] {
	if (text === undefined) return ["ledger", "full"];
	const named = text.split(",").map((a) => a.trim());
	for (const arm of named) {
		if (!(EVAL_ARMS as readonly string[]).includes(arm)) {
			throw new UsageError(`--arms: unknown arm ${JSON.stringify(arm)} (ledger, full, masked)`, "eval");
		}
	}
	const arms = EVAL_ARMS.filter((arm) => named.includes(arm));
	if (!arms.includes("full") || arms.length < 2) {
		throw new UsageError(
			"--arms needs full and at least one of ledger, masked (it is what they are compared with)",
			"eval",
		);
	}
	return arms;
}

function parseEval(rest: readonly string[]): ParsedArgs {
	const s = scan(rest, "eval");
	if (s.help) return { command: "help", text: EVAL_HELP };
	const advisor = modelFlag(s.flags, "--advisor");
	if (advisor === undefined) throw new UsageError("--advisor provider/model is required", "eval");
	const pointsText = stringFlag(s.flags, "--points");
	if (pointsText !== undefined && (!/^[0-9]+$/.test(pointsText) || Number(pointsText) < 1)) {
		throw new UsageError(`--points needs a whole number ≥ 1, got ${JSON.stringify(pointsText)}`, "eval");
	}
	const maxText = stringFlag(s.flags, "--max-usd");
	if (maxText !== undefined && !(/^[0-9]+(\.[0-9]+)?$/.test(maxText) && Number(maxText) > 0)) {
		throw new UsageError(`--max-usd needs an amount in dollars above 0, got ${JSON.stringify(maxText)}`, "eval");
	}
	return {
		command: "eval",
		paths: s.positional,
		advisor,
		judge: modelFlag(s.flags, "--judge"),
		points: pointsText === undefined ? DEFAULT_POINTS : Number(pointsText),
		arms: parseArms(stringFlag(s.flags, "--arms")),
		maxUsd: maxText === undefined ? undefined : Number(maxText),
		yes: s.flags.has("--yes"),
		out: stringFlag(s.flags, "--out") ?? DEFAULT_EVAL_OUT,
		resume: s.flags.has("--resume"),
		seed: stringFlag(s.flags, "--seed") ?? DEFAULT_SEED,
		json: s.flags.has("--json"),
	};
}
