/**
 * advisor.json (docs/configuration.md): where it lives, what every key may hold, and how a selection is
 * saved. A hand-edited file is the user's: a bad value costs that key only, never the rest of
 * the file, and saving rewrites modelKey and effort alone.
 */

import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { ModelThinkingLevel, ThinkingLevel } from "@mariozechner/pi-ai";
import { type Static, type TProperties, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { WarmingSettings } from "../policy/index.ts";
import {
	DEFAULT_LEDGER_CONFIG,
	DEFAULT_PROMPT_GUIDELINES,
	DEFAULT_PROMPT_SNIPPET,
	type LedgerConfig,
	REVIEW_PROMPT_GUIDELINES,
	REVIEW_PROMPT_SNIPPET,
} from "../render/index.ts";
import { canonicalModelKey } from "./host/model-key.ts";
import { configInvalidKeys, configUnreadable } from "./host/notices.ts";
import { readRegularFile } from "./regular-file.ts";

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/** pi-ai's reasoning levels, lowest first; disabledForModels' minEffort compares in this order. */
export const EFFORT_LEVELS = Object.freeze([
	"minimal",
	"low",
	"medium",
	"high",
	"xhigh",
] as const) satisfies readonly ThinkingLevel[];

export interface DisabledForModel {
	/** `provider/modelId`, legacy `provider:modelId`, or a bare modelId (any provider). */
	model: string;
	/** Only block when the executor thinks at least this hard; absent blocks at every level. */
	minEffort?: ThinkingLevel;
}

export interface GuidanceConfig {
	/** Absent = built-in. */
	promptSnippet?: string;
	/** Absent = built-in, which depends on review.enabled (see resolveGuidance). */
	promptGuidelines?: readonly string[];
}

export interface ToolsConfig {
	enabled: boolean;
	maxRounds: number;
	maxResultChars: number;
	/** false leaves only advisor_expand. */
	repo: boolean;
	/** A configured list replaces the default; it is never merged with it. */
	denyPatterns: readonly string[];
}

export type OnExceed = "confirm" | "skip";

export interface BudgetConfig {
	perCallSoftUsd: number;
	perCallHardUsd: number;
	/** Per branch. */
	sessionUsd: number;
	warmWindowSec: number;
	contextBudgetTokens: number;
	timeoutSec: number;
	onExceed: OnExceed;
}

/** The `warming` keys, as the pure warming economics read them (policy/warming/decision.ts). */
export type WarmingConfig = WarmingSettings;

export interface ReviewConfig {
	enabled: boolean;
	minToolCalls: number;
}

export interface AdviceConfig {
	/** The advice the executor gets and the session stores is cut to this many characters, marker included. */
	maxChars: number;
}

export interface AdvisorConfig {
	/** As written in the file; activation parses it, so an unparseable key can be cleared as stale. */
	modelKey?: string;
	/** Absent = no reasoning sent. `max` in the file reads as `xhigh`, `off` as absent. */
	effort?: ThinkingLevel;
	disabledForModels: readonly DisabledForModel[];
	guidance: GuidanceConfig;
	ledger: LedgerConfig;
	tools: ToolsConfig;
	budget: BudgetConfig;
	warming: WarmingConfig;
	review: ReviewConfig;
	advice: AdviceConfig;
}

export const DEFAULT_DENY_PATTERNS: readonly string[] = Object.freeze([
	".env",
	".env.*",
	"*.pem",
	"*.key",
	"id_rsa*",
	"*.p12",
	"*.pfx",
	// git's own folder holds remote URLs with tokens; git_diff covers the repository's content.
	".git",
	".npmrc",
	".netrc",
	".pypirc",
	".aws",
	"**/.docker/config.json",
	".ssh",
	"*.kdbx",
]);

const DEFAULT_TOOLS: Readonly<ToolsConfig> = Object.freeze({
	enabled: true,
	maxRounds: 3,
	maxResultChars: 12000,
	repo: true,
	denyPatterns: DEFAULT_DENY_PATTERNS,
});

const DEFAULT_BUDGET: Readonly<BudgetConfig> = Object.freeze({
	perCallSoftUsd: 1,
	perCallHardUsd: 3,
	sessionUsd: 20,
	warmWindowSec: 1800,
	contextBudgetTokens: 250000,
	timeoutSec: 420,
	onExceed: "confirm",
});

const DEFAULT_WARMING: Readonly<WarmingConfig> = Object.freeze({
	enabled: true,
	ttlSec: 0,
	minPromptTokens: 100000,
	continueProbability: 0.2,
	minSavingsUsd: 0.05,
	maxDurationSec: 3600,
});

const DEFAULT_REVIEW: Readonly<ReviewConfig> = Object.freeze({ enabled: false, minToolCalls: 1 });

// About 4k tokens: far more than a plan or a correction needs, far less than a runaway answer.
const DEFAULT_ADVICE: Readonly<AdviceConfig> = Object.freeze({ maxChars: 16000 });

export const DEFAULT_ADVISOR_CONFIG: Readonly<AdvisorConfig> = Object.freeze({
	disabledForModels: Object.freeze([]),
	guidance: Object.freeze({}),
	ledger: DEFAULT_LEDGER_CONFIG,
	tools: DEFAULT_TOOLS,
	budget: DEFAULT_BUDGET,
	warming: DEFAULT_WARMING,
	review: DEFAULT_REVIEW,
	advice: DEFAULT_ADVICE,
});

// ---------------------------------------------------------------------------------------------
// Schemas: one per leaf key, so a bad value is rejected on its own
// ---------------------------------------------------------------------------------------------

const Count = Type.Integer({ minimum: 0 });
const PositiveCount = Type.Integer({ minimum: 1 });
const NonNegative = Type.Number({ minimum: 0 });

const LevelSchema = Type.Union([
	Type.Literal("minimal"),
	Type.Literal("low"),
	Type.Literal("medium"),
	Type.Literal("high"),
	Type.Literal("xhigh"),
	// Provider-side name of the top level (pi-ai maps xhigh to "max" on models that have it).
	Type.Literal("max"),
]);

const EffortSchema = Type.Union([LevelSchema, Type.Literal("off")]);

const DisabledEntrySchema = Type.Union([
	Type.String({ minLength: 1 }),
	Type.Object({ model: Type.String({ minLength: 1 }), minEffort: Type.Optional(LevelSchema) }),
]);

// Pi takes one snippet line and a list of guidelines; either may be written as a string or a list.
const StringOrList = Type.Union([Type.String(), Type.Array(Type.String())]);

const GuidanceProps = { promptSnippet: StringOrList, promptGuidelines: StringOrList };

const LedgerProps = {
	tailToolCalls: Count,
	tailMaxChars: PositiveCount,
	tailResultMaxChars: PositiveCount,
	userMessageMaxChars: PositiveCount,
	customPreviewChars: Count,
	proseMaxChars: Count,
};

const ToolsProps = {
	enabled: Type.Boolean(),
	maxRounds: Count,
	maxResultChars: PositiveCount,
	repo: Type.Boolean(),
	denyPatterns: Type.Array(Type.String({ minLength: 1 })),
};

const BudgetProps = {
	perCallSoftUsd: NonNegative,
	perCallHardUsd: NonNegative,
	sessionUsd: NonNegative,
	warmWindowSec: NonNegative,
	// 0 turns trimming off (the gate never trims then).
	contextBudgetTokens: Count,
	timeoutSec: Type.Number({ exclusiveMinimum: 0 }),
	onExceed: Type.Union([Type.Literal("confirm"), Type.Literal("skip")]),
};

const WarmingProps = {
	enabled: Type.Boolean(),
	ttlSec: NonNegative,
	minPromptTokens: Count,
	continueProbability: Type.Number({ minimum: 0, maximum: 1 }),
	minSavingsUsd: NonNegative,
	maxDurationSec: NonNegative,
};

const ReviewProps = { enabled: Type.Boolean(), minToolCalls: Count };

// The cut marker needs room of its own: a cap shorter than this would leave no advice at all.
const AdviceProps = { maxChars: Type.Integer({ minimum: 200 }) };

const partial = <P extends TProperties>(props: P) =>
	Type.Object(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, Type.Optional(s)])));

/** The whole file, every key optional. For documentation and editors; loading checks key by key. */
export const AdvisorFileSchema = Type.Object({
	modelKey: Type.Optional(Type.String()),
	effort: Type.Optional(EffortSchema),
	disabledForModels: Type.Optional(Type.Array(DisabledEntrySchema)),
	guidance: Type.Optional(partial(GuidanceProps)),
	ledger: Type.Optional(partial(LedgerProps)),
	tools: Type.Optional(partial(ToolsProps)),
	budget: Type.Optional(partial(BudgetProps)),
	warming: Type.Optional(partial(WarmingProps)),
	review: Type.Optional(partial(ReviewProps)),
	advice: Type.Optional(partial(AdviceProps)),
});

// ---------------------------------------------------------------------------------------------
// Location
// ---------------------------------------------------------------------------------------------

/** Injectable so tests never touch the real home directory. */
export interface ConfigLocation {
	env?: Readonly<Record<string, string | undefined>>;
	home?: string;
}

export const CONFIG_FOLDER = "pi-advisor-ledger";
/** rpiv-advisor's folder, read when ours is absent so users can switch without re-configuring. */
export const RPIV_CONFIG_FOLDER = "rpiv-advisor";
export const CONFIG_FILE = "advisor.json";

function configRoot(opts: ConfigLocation): string {
	const xdg = (opts.env ?? process.env).XDG_CONFIG_HOME;
	// The XDG spec says a relative value is invalid and must be ignored.
	if (xdg && isAbsolute(xdg)) return xdg;
	return join(opts.home ?? homedir(), ".config");
}

export function configPaths(opts: ConfigLocation = {}): { ledger: string; rpiv: string } {
	const root = configRoot(opts);
	return { ledger: join(root, CONFIG_FOLDER, CONFIG_FILE), rpiv: join(root, RPIV_CONFIG_FOLDER, CONFIG_FILE) };
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;

type FileRead = { kind: "missing" } | { kind: "ok"; raw: JsonObject } | { kind: "unusable"; reason: string };

function isJsonObject(value: unknown): value is JsonObject {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}

/** advisor.json is a few hundred bytes; anything past this is not a config worth waiting for. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Read when Pi starts: a FIFO, a device (a link to /dev/zero) or a huge file must neither block
 * the start nor fill the memory, so only a regular file of bounded size is read.
 */
function readJsonObject(path: string): FileRead {
	const read = readRegularFile(path, MAX_CONFIG_BYTES);
	if (read.kind === "missing") return { kind: "missing" };
	if (read.kind === "refused") return { kind: "unusable", reason: read.reason };
	const text = read.text;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (err) {
		return { kind: "unusable", reason: `not valid JSON: ${errorText(err)}` };
	}
	return isJsonObject(value) ? { kind: "ok", raw: value } : { kind: "unusable", reason: "not a JSON object" };
}

type Section<P extends TProperties> = { -readonly [K in keyof P]: Static<P[K]> };

/** Checks each key of a section on its own; `bad` collects the dotted names of rejected keys. */
function readSection<P extends TProperties>(
	name: string,
	props: P,
	defaults: Section<P>,
	value: unknown,
	bad: string[],
): Section<P> {
	const out: Section<P> = { ...defaults };
	if (value === undefined || value === null) return out;
	if (!isJsonObject(value)) {
		bad.push(name);
		return out;
	}
	for (const key of Object.keys(props) as (keyof P & string)[]) {
		const v = value[key];
		if (v === undefined || v === null) continue;
		if (Value.Check(props[key] as TSchema, v)) out[key] = v as Section<P>[typeof key];
		else bad.push(`${name}.${key}`);
	}
	return out;
}

function readLeaf<S extends TSchema>(name: string, schema: S, value: unknown, bad: string[]): Static<S> | undefined {
	if (value === undefined || value === null) return undefined;
	if (Value.Check(schema, value)) return value;
	bad.push(name);
	return undefined;
}

function toLevel(level: Static<typeof LevelSchema>): ThinkingLevel {
	return level === "max" ? "xhigh" : level;
}

function toEffort(effort: Static<typeof EffortSchema> | undefined): ThinkingLevel | undefined {
	return effort === undefined || effort === "off" ? undefined : toLevel(effort);
}

// Entries are independent rules: a typo in one must not re-enable the advisor for the others.
function readDisabledForModels(value: unknown, bad: string[]): DisabledForModel[] {
	if (value === undefined || value === null) return [];
	if (!Array.isArray(value)) {
		bad.push("disabledForModels");
		return [];
	}
	const out: DisabledForModel[] = [];
	value.forEach((entry, i) => {
		if (!Value.Check(DisabledEntrySchema, entry)) {
			bad.push(`disabledForModels[${i}]`);
			return;
		}
		if (typeof entry === "string") out.push({ model: entry });
		else
			out.push(
				entry.minEffort ? { model: entry.model, minEffort: toLevel(entry.minEffort) } : { model: entry.model },
			);
	});
	return out;
}

function readGuidance(value: unknown, bad: string[]): GuidanceConfig {
	// No defaults here: an absent key means "built-in", which resolveGuidance decides.
	const section = readSection("guidance", GuidanceProps, {} as Section<typeof GuidanceProps>, value, bad);
	const out: GuidanceConfig = {};
	const snippet = section.promptSnippet;
	// Pi shows the snippet as one line of the system prompt's tool list.
	if (snippet !== undefined) out.promptSnippet = typeof snippet === "string" ? snippet : snippet.join(" ");
	const guidelines = section.promptGuidelines;
	if (guidelines !== undefined) out.promptGuidelines = typeof guidelines === "string" ? [guidelines] : guidelines;
	return out;
}

/** Validates a parsed file key by key. Unknown keys are ignored (they stay in `raw`). */
export function parseConfig(raw: JsonObject): { config: AdvisorConfig; invalidKeys: string[] } {
	const bad: string[] = [];
	const config: AdvisorConfig = {
		disabledForModels: readDisabledForModels(raw.disabledForModels, bad),
		guidance: readGuidance(raw.guidance, bad),
		ledger: readSection("ledger", LedgerProps, { ...DEFAULT_LEDGER_CONFIG }, raw.ledger, bad),
		tools: readSection(
			"tools",
			ToolsProps,
			{ ...DEFAULT_TOOLS, denyPatterns: [...DEFAULT_DENY_PATTERNS] },
			raw.tools,
			bad,
		),
		budget: readSection("budget", BudgetProps, { ...DEFAULT_BUDGET }, raw.budget, bad),
		warming: readSection("warming", WarmingProps, { ...DEFAULT_WARMING }, raw.warming, bad),
		review: readSection("review", ReviewProps, { ...DEFAULT_REVIEW }, raw.review, bad),
		advice: readSection("advice", AdviceProps, { ...DEFAULT_ADVICE }, raw.advice, bad),
	};
	const modelKey = readLeaf("modelKey", Type.String(), raw.modelKey, bad);
	if (modelKey !== undefined) config.modelKey = modelKey;
	const effort = toEffort(readLeaf("effort", EffortSchema, raw.effort, bad));
	if (effort !== undefined) config.effort = effort;
	return { config, invalidKeys: bad };
}

export type ConfigSource = "ledger" | "rpiv" | "default";

export interface LoadedConfig {
	config: AdvisorConfig;
	/** The parsed file as written (unknown keys included); `{}` when nothing usable was read. */
	raw: JsonObject;
	/** The file the values came from, the unusable file that was skipped, or where ours would be. */
	path: string;
	source: ConfigSource;
	/** At most one: either the file was unusable, or it named the keys that fell back. */
	warnings: string[];
}

function defaults(): AdvisorConfig {
	return parseConfig({}).config;
}

export function loadConfig(opts: ConfigLocation = {}): LoadedConfig {
	const paths = configPaths(opts);
	const candidates: [Exclude<ConfigSource, "default">, string][] = [
		["ledger", paths.ledger],
		["rpiv", paths.rpiv],
	];
	for (const [source, path] of candidates) {
		const read = readJsonObject(path);
		switch (read.kind) {
			case "missing":
				continue;
			case "unusable":
				// A file the user wrote but broke is not "absent": don't silently read another one.
				return {
					config: defaults(),
					raw: {},
					path,
					source: "default",
					warnings: [configUnreadable(path, read.reason)],
				};
			case "ok": {
				const { config, invalidKeys } = parseConfig(read.raw);
				const warnings = invalidKeys.length > 0 ? [configInvalidKeys(path, invalidKeys)] : [];
				return { config, raw: read.raw, path, source, warnings };
			}
			default: {
				const unreachable: never = read;
				throw new Error(`unhandled read ${JSON.stringify(unreachable)}`);
			}
		}
	}
	return { config: defaults(), raw: {}, path: paths.ledger, source: "default", warnings: [] };
}

/**
 * Pi's built-in executor wording unless the user configured their own. With completion review on
 * the built-in wording drops "consult before declaring done" and explains the
 * `advisor-review` message instead (snippet and guidelines each, so a configured one still wins).
 */
export function resolveGuidance(config: AdvisorConfig): { promptSnippet: string; promptGuidelines: readonly string[] } {
	return {
		promptSnippet:
			config.guidance.promptSnippet ?? (config.review.enabled ? REVIEW_PROMPT_SNIPPET : DEFAULT_PROMPT_SNIPPET),
		promptGuidelines:
			config.guidance.promptGuidelines ??
			(config.review.enabled ? REVIEW_PROMPT_GUIDELINES : DEFAULT_PROMPT_GUIDELINES),
	};
}

// ---------------------------------------------------------------------------------------------
// Saving the /advisor selection
// ---------------------------------------------------------------------------------------------

/** What /advisor picked. No modelKey = "No advisor"; no effort (or off) = no reasoning sent. */
export interface Selection {
	modelKey?: string;
	effort?: ModelThinkingLevel;
}

export type SaveResult = { ok: true; path: string; raw: JsonObject } | { ok: false; path: string; message: string };

function removeQuietly(path: string): void {
	try {
		rmSync(path, { force: true });
	} catch {
		// The save already failed; a leftover temp file is not worth a second error.
	}
}

/** Replaces modelKey/effort in place, adds them at the top when new, and drops them when unset. */
function withSelection(base: JsonObject, modelKey: string | undefined, effort: ThinkingLevel | undefined): JsonObject {
	const wanted: JsonObject = {};
	if (modelKey !== undefined) wanted.modelKey = modelKey;
	if (effort !== undefined) wanted.effort = effort;
	const entries: [string, unknown][] = [];
	for (const key of ["modelKey", "effort"]) if (key in wanted && !(key in base)) entries.push([key, wanted[key]]);
	for (const [key, value] of Object.entries(base)) {
		if (key === "modelKey" || key === "effort") {
			if (key in wanted) entries.push([key, wanted[key]]);
		} else entries.push([key, value]);
	}
	// fromEntries defines own properties, so a hand-written "__proto__" key stays a plain key.
	return Object.fromEntries(entries);
}

/**
 * Writes only modelKey and effort. The file is re-read first so hand edits made while Pi was
 * running survive; when ours does not exist yet, rpiv-advisor's keys are carried over once so
 * switching loses nothing. Never throws: the caller reports a failed save and changes nothing.
 */
export function saveSelection(opts: ConfigLocation, selection: Selection): SaveResult {
	const paths = configPaths(opts);
	const path = paths.ledger;
	const fail = (message: string): SaveResult => ({ ok: false, path, message });

	let modelKey: string | undefined;
	if (selection.modelKey !== undefined) {
		modelKey = canonicalModelKey(selection.modelKey);
		if (modelKey === undefined) return fail(`not a provider/modelId key: ${selection.modelKey}`);
	}
	const effort = modelKey === undefined || selection.effort === "off" ? undefined : selection.effort;

	let base: JsonObject = {};
	const current = readJsonObject(path);
	switch (current.kind) {
		case "ok":
			base = current.raw;
			break;
		case "unusable":
			// Overwriting would destroy the user's hand edits along with the syntax error.
			return fail(`${path}: ${current.reason}`);
		case "missing": {
			const rpiv = readJsonObject(paths.rpiv);
			if (rpiv.kind === "ok") base = rpiv.raw;
			break;
		}
		default: {
			const unreachable: never = current;
			return fail(`unhandled read ${JSON.stringify(unreachable)}`);
		}
	}

	const raw = withSelection(base, modelKey, effort);
	let temp: string | undefined;
	try {
		// Inside the try: a hand-written key nested deeper than JSON.stringify can recurse must fail the save, not throw.
		const text = `${JSON.stringify(raw, null, 2)}\n`;
		mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
		// Write through a symlinked advisor.json (dotfile managers) instead of replacing the link.
		const target = current.kind === "ok" ? realpathSync(path) : path;
		// A temp file + rename never leaves a half-written config behind.
		temp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
		writeFileSync(temp, text, { mode: 0o600 });
		chmodSync(temp, 0o600);
		renameSync(temp, target);
		temp = undefined;
		return { ok: true, path, raw };
	} catch (err) {
		return fail(errorText(err));
	} finally {
		if (temp !== undefined) removeQuietly(temp);
	}
}
