import { execFileSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	type AdvisorConfig,
	type ConfigLocation,
	configPaths,
	DEFAULT_ADVISOR_CONFIG,
	DEFAULT_DENY_PATTERNS,
	loadConfig,
	parseConfig,
	resolveGuidance,
	saveSelection,
} from "../../src/adapter/config.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../src/render/config.ts";
import {
	DEFAULT_PROMPT_GUIDELINES,
	DEFAULT_PROMPT_SNIPPET,
	REVIEW_PROMPT_GUIDELINES,
} from "../../src/render/model-text.ts";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let home: string;
let opts: ConfigLocation;

beforeEach(() => {
	home = mkdtempSync(join(tmpdir(), "advisor-config-"));
	opts = { env: {}, home };
});

afterEach(() => {
	rmSync(home, { recursive: true, force: true });
});

const ledgerPath = () => join(home, ".config", "pi-advisor-ledger", "advisor.json");
const rpivPath = () => join(home, ".config", "rpiv-advisor", "advisor.json");

function writeJson(path: string, value: unknown): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, "utf8"));
const modeOf = (path: string) => statSync(path).mode & 0o777;

const DEFAULTS: AdvisorConfig = {
	disabledForModels: [],
	guidance: {},
	ledger: {
		tailToolCalls: 2,
		tailMaxChars: 8000,
		tailResultMaxChars: 1000,
		userMessageMaxChars: 20000,
		customPreviewChars: 500,
		proseMaxChars: 300,
	},
	tools: {
		enabled: true,
		maxRounds: 3,
		maxResultChars: 12000,
		repo: true,
		denyPatterns: [
			".env",
			".env.*",
			"*.pem",
			"*.key",
			"id_rsa*",
			"*.p12",
			"*.pfx",
			".git",
			".npmrc",
			".netrc",
			".pypirc",
			".aws",
			"**/.docker/config.json",
			".ssh",
			"*.kdbx",
		],
	},
	budget: {
		perCallSoftUsd: 1,
		perCallHardUsd: 3,
		sessionUsd: 20,
		warmWindowSec: 1800,
		contextBudgetTokens: 250000,
		timeoutSec: 420,
		onExceed: "confirm",
	},
	warming: {
		enabled: true,
		ttlSec: 0,
		minPromptTokens: 100000,
		continueProbability: 0.2,
		minSavingsUsd: 0.05,
		maxDurationSec: 3600,
	},
	review: { enabled: false, minToolCalls: 1 },
	advice: { maxChars: 16000 },
};

describe("location", () => {
	it("defaults to ~/.config when XDG_CONFIG_HOME is unset", () => {
		expect(configPaths({ env: {}, home: "/h" })).toEqual({
			ledger: "/h/.config/pi-advisor-ledger/advisor.json",
			rpiv: "/h/.config/rpiv-advisor/advisor.json",
		});
	});

	it("uses an absolute XDG_CONFIG_HOME", () => {
		expect(configPaths({ env: { XDG_CONFIG_HOME: "/xdg" }, home: "/h" })).toEqual({
			ledger: "/xdg/pi-advisor-ledger/advisor.json",
			rpiv: "/xdg/rpiv-advisor/advisor.json",
		});
	});

	it.each(["relative/xdg", "./xdg", "~/xdg", ""])("ignores XDG_CONFIG_HOME=%j (not absolute)", (xdg) => {
		expect(configPaths({ env: { XDG_CONFIG_HOME: xdg }, home: "/h" }).ledger).toBe(
			"/h/.config/pi-advisor-ledger/advisor.json",
		);
	});

	it("reads from an absolute XDG_CONFIG_HOME", () => {
		const xdg = join(home, "xdg");
		writeJson(join(xdg, "pi-advisor-ledger", "advisor.json"), { modelKey: "a/b" });
		const loaded = loadConfig({ env: { XDG_CONFIG_HOME: xdg }, home });
		expect(loaded.source).toBe("ledger");
		expect(loaded.config.modelKey).toBe("a/b");
	});

	it("does not read a relative XDG_CONFIG_HOME even when a file sits there", () => {
		const cwdRelative = "rel-xdg-never-used";
		const loaded = loadConfig({ env: { XDG_CONFIG_HOME: cwdRelative }, home });
		expect(loaded.path).toBe(ledgerPath());
		expect(loaded.source).toBe("default");
	});
});

describe("defaults", () => {
	it("a missing file gives every docs/configuration.md default and no warning", () => {
		const loaded = loadConfig(opts);
		expect(loaded).toEqual({ config: DEFAULTS, raw: {}, path: ledgerPath(), source: "default", warnings: [] });
	});

	it("the exported defaults match the table and the ledger defaults", () => {
		expect(DEFAULT_ADVISOR_CONFIG).toEqual(DEFAULTS);
		expect(DEFAULT_ADVISOR_CONFIG.ledger).toBe(DEFAULT_LEDGER_CONFIG);
		expect(DEFAULT_DENY_PATTERNS).toEqual(DEFAULTS.tools.denyPatterns);
	});

	it("an empty object gives the defaults without a warning", () => {
		writeJson(ledgerPath(), {});
		expect(loadConfig(opts)).toMatchObject({ config: DEFAULTS, source: "ledger", warnings: [] });
	});

	it("no effort and no modelKey by default (off, no reasoning sent)", () => {
		const { config } = loadConfig(opts);
		expect("modelKey" in config).toBe(false);
		expect("effort" in config).toBe(false);
	});
});

describe("unusable files: defaults with exactly one warning", () => {
	it.each([
		["malformed JSON", "{ modelKey: nope"],
		["a JSON array", "[1, 2]"],
		["a JSON string", '"advisor"'],
		["JSON null", "null"],
		["an empty file", ""],
	])("%s", (_name, text) => {
		writeJson(ledgerPath(), text);
		const loaded = loadConfig(opts);
		expect(loaded.config).toEqual(DEFAULTS);
		expect(loaded.source).toBe("default");
		expect(loaded.path).toBe(ledgerPath());
		expect(loaded.warnings).toHaveLength(1);
		expect(loaded.warnings[0]).toContain(ledgerPath());
	});

	it("a folder where the file should be", () => {
		mkdirSync(ledgerPath(), { recursive: true });
		const loaded = loadConfig(opts);
		expect(loaded.config).toEqual(DEFAULTS);
		expect(loaded.warnings).toHaveLength(1);
	});

	it("a broken file of ours is not skipped in favour of rpiv-advisor's", () => {
		writeJson(ledgerPath(), "{");
		writeJson(rpivPath(), { modelKey: "rpiv/model" });
		const loaded = loadConfig(opts);
		expect(loaded.source).toBe("default");
		expect(loaded.config.modelKey).toBeUndefined();
		expect(loaded.warnings).toHaveLength(1);
	});
});

describe("every key", () => {
	const full = {
		modelKey: "anthropic/claude-opus-4-1",
		effort: "high",
		disabledForModels: ["openai/gpt-5", { model: "anthropic:claude-opus-4-1", minEffort: "medium" }],
		guidance: { promptSnippet: "Ask the advisor", promptGuidelines: ["one", "two"] },
		ledger: {
			tailToolCalls: 4,
			tailMaxChars: 100,
			tailResultMaxChars: 60,
			userMessageMaxChars: 200,
			customPreviewChars: 0,
			proseMaxChars: 50,
		},
		tools: { enabled: false, maxRounds: 0, maxResultChars: 1, repo: false, denyPatterns: ["*.secret"] },
		budget: {
			perCallSoftUsd: 0.5,
			perCallHardUsd: 2,
			sessionUsd: 0,
			warmWindowSec: 60,
			contextBudgetTokens: 1000,
			timeoutSec: 0.5,
			onExceed: "skip",
		},
		warming: {
			enabled: false,
			ttlSec: 300,
			minPromptTokens: 0,
			continueProbability: 1,
			minSavingsUsd: 0,
			maxDurationSec: 0,
		},
		review: { enabled: true, minToolCalls: 0 },
		advice: { maxChars: 200 },
	};

	it("are all read when valid", () => {
		writeJson(ledgerPath(), full);
		const loaded = loadConfig(opts);
		expect(loaded.warnings).toEqual([]);
		expect(loaded.raw).toEqual(full);
		expect(loaded.config).toEqual({
			...full,
			disabledForModels: [{ model: "openai/gpt-5" }, { model: "anthropic:claude-opus-4-1", minEffort: "medium" }],
		});
	});

	it("a configured denyPatterns replaces the default instead of extending it", () => {
		writeJson(ledgerPath(), { tools: { denyPatterns: ["*.secret"] } });
		expect(loadConfig(opts).config.tools.denyPatterns).toEqual(["*.secret"]);
		writeJson(ledgerPath(), { tools: { denyPatterns: [] } });
		expect(loadConfig(opts).config.tools.denyPatterns).toEqual([]);
	});

	it("unknown keys stay in raw without a warning", () => {
		writeJson(ledgerPath(), { modelKey: "a/b", futureKey: { x: 1 }, tools: { futureTool: true } });
		const loaded = loadConfig(opts);
		expect(loaded.warnings).toEqual([]);
		expect(loaded.raw).toMatchObject({ futureKey: { x: 1 } });
	});

	it("null means unset, without a warning", () => {
		writeJson(ledgerPath(), { modelKey: null, effort: null, budget: null, tools: { maxRounds: null } });
		const loaded = loadConfig(opts);
		expect(loaded.warnings).toEqual([]);
		expect(loaded.config).toEqual(DEFAULTS);
	});
});

describe("effort", () => {
	it.each(["minimal", "low", "medium", "high", "xhigh"])("%s is kept", (effort) => {
		expect(parseConfig({ effort }).config.effort).toBe(effort);
	});

	it("max reads as xhigh, pi-ai's top level (which models map to the provider's `max`)", () => {
		expect(parseConfig({ effort: "max" }).config.effort).toBe("xhigh");
		expect(parseConfig({ disabledForModels: [{ model: "m", minEffort: "max" }] }).config.disabledForModels).toEqual([
			{ model: "m", minEffort: "xhigh" },
		]);
	});

	it("off reads as absent: no reasoning sent", () => {
		const result = parseConfig({ effort: "off" });
		expect(result.invalidKeys).toEqual([]);
		expect("effort" in result.config).toBe(false);
	});

	it.each(["HIGH", "extreme", 3, true])("%j is invalid", (effort) => {
		const result = parseConfig({ effort });
		expect(result.invalidKeys).toEqual(["effort"]);
		expect(result.config.effort).toBeUndefined();
	});
});

describe("guidance", () => {
	it("built-in wording when absent; review wording when reviews are on", () => {
		expect(resolveGuidance(DEFAULTS)).toEqual({
			promptSnippet: DEFAULT_PROMPT_SNIPPET,
			promptGuidelines: DEFAULT_PROMPT_GUIDELINES,
		});
		expect(resolveGuidance({ ...DEFAULTS, review: { enabled: true, minToolCalls: 1 } }).promptGuidelines).toBe(
			REVIEW_PROMPT_GUIDELINES,
		);
	});

	it("a string or a list for either key", () => {
		expect(parseConfig({ guidance: { promptSnippet: "s", promptGuidelines: "g" } }).config.guidance).toEqual({
			promptSnippet: "s",
			promptGuidelines: ["g"],
		});
		expect(
			parseConfig({ guidance: { promptSnippet: ["a", "b"], promptGuidelines: ["g", "h"] } }).config.guidance,
		).toEqual({ promptSnippet: "a b", promptGuidelines: ["g", "h"] });
	});

	it("configured guidelines win over the review wording", () => {
		const { config } = parseConfig({ guidance: { promptGuidelines: ["mine"] }, review: { enabled: true } });
		expect(resolveGuidance(config).promptGuidelines).toEqual(["mine"]);
	});

	it("a bad value falls back per key", () => {
		const result = parseConfig({ guidance: { promptSnippet: 5, promptGuidelines: ["ok"] } });
		expect(result.invalidKeys).toEqual(["guidance.promptSnippet"]);
		expect(result.config.guidance).toEqual({ promptGuidelines: ["ok"] });
	});
});

describe("per-key fallback", () => {
	it("keeps every valid key, defaults each bad one, and warns once naming them all", () => {
		writeJson(ledgerPath(), {
			modelKey: "a/b",
			effort: "loud",
			budget: { timeoutSec: -1, sessionUsd: 7, onExceed: "ask" },
			tools: { maxRounds: 1.5, repo: false },
			warming: "on",
			review: { enabled: true },
		});
		const loaded = loadConfig(opts);
		expect(loaded.source).toBe("ledger");
		expect(loaded.config.modelKey).toBe("a/b");
		expect(loaded.config.effort).toBeUndefined();
		expect(loaded.config.budget).toEqual({ ...DEFAULTS.budget, sessionUsd: 7 });
		expect(loaded.config.tools).toEqual({ ...DEFAULTS.tools, repo: false });
		expect(loaded.config.warming).toEqual(DEFAULTS.warming);
		expect(loaded.config.review).toEqual({ enabled: true, minToolCalls: 1 });
		expect(loaded.warnings).toHaveLength(1);
		for (const key of ["effort", "budget.timeoutSec", "budget.onExceed", "tools.maxRounds", "warming"]) {
			expect(loaded.warnings[0]).toContain(key);
		}
		expect(loaded.warnings[0]).not.toContain("sessionUsd");
	});

	it("advice.maxChars: an integer of at least 200 (room for the cut marker), else the default", () => {
		expect(parseConfig({ advice: { maxChars: 4000 } }).config.advice).toEqual({ maxChars: 4000 });
		for (const maxChars of [199, 0, -5, 1.5, "16000", true]) {
			expect(parseConfig({ advice: { maxChars } })).toMatchObject({
				config: { advice: { maxChars: 16000 } },
				invalidKeys: ["advice.maxChars"],
			});
		}
	});

	it("a bad disabledForModels entry drops that entry only", () => {
		const result = parseConfig({
			disabledForModels: ["a/b", 7, { model: "" }, { model: "c", minEffort: "off" }, "d"],
		});
		expect(result.config.disabledForModels).toEqual([{ model: "a/b" }, { model: "d" }]);
		expect(result.invalidKeys).toEqual(["disabledForModels[1]", "disabledForModels[2]", "disabledForModels[3]"]);
	});

	it("a non-list disabledForModels is ignored as a whole", () => {
		expect(parseConfig({ disabledForModels: "a/b" })).toMatchObject({
			config: { disabledForModels: [] },
			invalidKeys: ["disabledForModels"],
		});
	});

	it("a list with a bad pattern keeps the default denyPatterns (a broken list is not a safe list)", () => {
		const result = parseConfig({ tools: { denyPatterns: [".env", 3] } });
		expect(result.config.tools.denyPatterns).toEqual(DEFAULT_DENY_PATTERNS);
		expect(result.invalidKeys).toEqual(["tools.denyPatterns"]);
	});

	it("a non-string modelKey is dropped", () => {
		expect(parseConfig({ modelKey: 42 })).toMatchObject({ invalidKeys: ["modelKey"] });
	});

	// One row per leaf: a valid value other than the default, and values that must be rejected.
	const LEAVES: [string, string, fc.Arbitrary<unknown>, fc.Arbitrary<unknown>][] = [
		["ledger", "tailToolCalls", fc.nat(50), fc.oneof(fc.constant(-1), fc.constant(1.5), fc.constant("2"))],
		["ledger", "tailMaxChars", fc.integer({ min: 1, max: 1e6 }), fc.oneof(fc.constant(0), fc.constant("8000"))],
		["ledger", "tailResultMaxChars", fc.integer({ min: 1, max: 1e6 }), fc.oneof(fc.constant(0), fc.constant(2.5))],
		["ledger", "userMessageMaxChars", fc.integer({ min: 1, max: 1e6 }), fc.constant(-5)],
		["ledger", "customPreviewChars", fc.nat(1000), fc.constant(true)],
		["ledger", "proseMaxChars", fc.nat(1000), fc.oneof(fc.constant(-1), fc.constant(2.5), fc.constant("300"))],
		["tools", "enabled", fc.boolean(), fc.oneof(fc.constant("yes"), fc.constant(1))],
		["tools", "maxRounds", fc.nat(10), fc.constant(-1)],
		["tools", "maxResultChars", fc.integer({ min: 1, max: 1e6 }), fc.constant(0)],
		["tools", "repo", fc.boolean(), fc.constant("false")],
		["tools", "denyPatterns", fc.array(fc.string({ minLength: 1 })), fc.constant([1])],
		["budget", "perCallSoftUsd", fc.double({ min: 0, max: 100, noNaN: true }), fc.constant(-0.01)],
		["budget", "perCallHardUsd", fc.double({ min: 0, max: 100, noNaN: true }), fc.constant("3")],
		["budget", "sessionUsd", fc.double({ min: 0, max: 100, noNaN: true }), fc.constant({})],
		["budget", "warmWindowSec", fc.nat(), fc.constant(-1)],
		["budget", "contextBudgetTokens", fc.integer({ min: 0, max: 1e7 }), fc.constant(-1)],
		["budget", "timeoutSec", fc.integer({ min: 1, max: 3600 }), fc.oneof(fc.constant(0), fc.constant(-1))],
		["budget", "onExceed", fc.constantFrom("confirm", "skip"), fc.constant("ask")],
		["warming", "enabled", fc.boolean(), fc.constant(0)],
		["warming", "ttlSec", fc.nat(), fc.constant(-1)],
		["warming", "minPromptTokens", fc.nat(), fc.constant(0.5)],
		["warming", "continueProbability", fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(1.01)],
		["warming", "minSavingsUsd", fc.double({ min: 0, max: 10, noNaN: true }), fc.constant(-1)],
		["warming", "maxDurationSec", fc.nat(), fc.constant([])],
		["review", "enabled", fc.boolean(), fc.constant("true")],
		["review", "minToolCalls", fc.nat(20), fc.constant(-2)],
	];

	it("property: valid leaves always survive, bad leaves always fall back, one warning at most", () => {
		const leaf = fc.tuple(
			...LEAVES.map(([section, key, valid, bad]) =>
				fc.oneof(
					fc.record({
						section: fc.constant(section),
						key: fc.constant(key),
						kind: fc.constant("absent" as const),
					}),
					fc.record({
						section: fc.constant(section),
						key: fc.constant(key),
						kind: fc.constant("valid" as const),
						value: valid,
					}),
					fc.record({
						section: fc.constant(section),
						key: fc.constant(key),
						kind: fc.constant("bad" as const),
						value: bad,
					}),
				),
			),
		);
		fc.assert(
			fc.property(leaf, (leaves) => {
				const raw: Record<string, Record<string, unknown>> = {};
				for (const l of leaves) {
					if (l.kind === "absent") continue;
					raw[l.section] ??= {};
					raw[l.section]![l.key] = l.value;
				}
				const { config, invalidKeys } = parseConfig(raw);
				const sections = config as unknown as Record<string, Record<string, unknown>>;
				const defaults = DEFAULTS as unknown as Record<string, Record<string, unknown>>;
				for (const l of leaves) {
					const got = sections[l.section]![l.key];
					if (l.kind === "valid") expect(got).toEqual(l.value);
					else expect(got).toEqual(defaults[l.section]![l.key]);
				}
				const expectedBad = leaves.filter((l) => l.kind === "bad").map((l) => `${l.section}.${l.key}`);
				expect([...invalidKeys].sort()).toEqual(expectedBad.sort());
			}),
			{ numRuns: 300 },
		);
	});

	it("property: loadConfig never throws and warns at most once, whatever the file holds", () => {
		fc.assert(
			fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
				writeJson(ledgerPath(), text);
				const loaded = loadConfig(opts);
				expect(loaded.warnings.length).toBeLessThanOrEqual(1);
			}),
			{ numRuns: 200 },
		);
	});
});

describe("rpiv-advisor fallback", () => {
	it("reads rpiv-advisor's file when ours is absent", () => {
		writeJson(rpivPath(), { modelKey: "openai:gpt-5", effort: "high", budget: { sessionUsd: 5 } });
		const loaded = loadConfig(opts);
		expect(loaded.source).toBe("rpiv");
		expect(loaded.path).toBe(rpivPath());
		expect(loaded.config.modelKey).toBe("openai:gpt-5");
		expect(loaded.config.effort).toBe("high");
		expect(loaded.config.budget.sessionUsd).toBe(5);
	});

	it("ours wins when both exist", () => {
		writeJson(rpivPath(), { modelKey: "rpiv/old" });
		writeJson(ledgerPath(), { modelKey: "ours/new" });
		expect(loadConfig(opts)).toMatchObject({ source: "ledger", config: { modelKey: "ours/new" } });
	});

	it("a broken rpiv file gives defaults with one warning naming it", () => {
		writeJson(rpivPath(), "{oops");
		const loaded = loadConfig(opts);
		expect(loaded.source).toBe("default");
		expect(loaded.warnings).toHaveLength(1);
		expect(loaded.warnings[0]).toContain(rpivPath());
	});

	it("honours XDG_CONFIG_HOME for the rpiv location too", () => {
		const xdg = join(home, "xdg");
		writeJson(join(xdg, "rpiv-advisor", "advisor.json"), { modelKey: "x/y" });
		expect(loadConfig({ env: { XDG_CONFIG_HOME: xdg }, home })).toMatchObject({ source: "rpiv" });
	});
});

describe("saveSelection", () => {
	it("creates the folder and writes pretty JSON with a trailing newline, mode 0600", () => {
		const result = saveSelection(opts, { modelKey: "anthropic/claude-opus-4-1", effort: "high" });
		expect(result).toEqual({
			ok: true,
			path: ledgerPath(),
			raw: { modelKey: "anthropic/claude-opus-4-1", effort: "high" },
		});
		expect(readFileSync(ledgerPath(), "utf8")).toBe(
			'{\n  "modelKey": "anthropic/claude-opus-4-1",\n  "effort": "high"\n}\n',
		);
		expect(modeOf(ledgerPath())).toBe(0o600);
	});

	it("preserves every hand-edited key, its value and its position", () => {
		const hand = {
			$comment: "mine",
			budget: { sessionUsd: 12.5, onExceed: "skip", extra: [1, { deep: null }] },
			modelKey: "old/model",
			effort: "low",
			tools: { denyPatterns: ["*.secret"] },
			unknown: "kept",
		};
		writeJson(ledgerPath(), hand);
		const result = saveSelection(opts, { modelKey: "new/model", effort: "xhigh" });
		expect(result.ok).toBe(true);
		const saved = readJson(ledgerPath());
		expect(saved).toEqual({ ...hand, modelKey: "new/model", effort: "xhigh" });
		expect(Object.keys(saved)).toEqual(Object.keys(hand));
	});

	it("re-reads the file, so edits made after loading survive", () => {
		writeJson(ledgerPath(), { modelKey: "a/b" });
		loadConfig(opts);
		writeJson(ledgerPath(), { modelKey: "a/b", review: { enabled: true } });
		saveSelection(opts, { modelKey: "c/d" });
		expect(readJson(ledgerPath())).toEqual({ modelKey: "c/d", review: { enabled: true } });
	});

	it("new selection keys go first, ahead of hand-edited ones", () => {
		writeJson(ledgerPath(), { budget: { sessionUsd: 1 } });
		saveSelection(opts, { modelKey: "a/b", effort: "medium" });
		expect(Object.keys(readJson(ledgerPath()))).toEqual(["modelKey", "effort", "budget"]);
	});

	it("tightens an existing file to 0600", () => {
		writeJson(ledgerPath(), { modelKey: "a/b" });
		chmodSync(ledgerPath(), 0o644);
		expect(saveSelection(opts, { modelKey: "a/b" }).ok).toBe(true);
		expect(modeOf(ledgerPath())).toBe(0o600);
	});

	it("No advisor removes modelKey and effort and keeps the rest", () => {
		writeJson(ledgerPath(), { modelKey: "a/b", effort: "high", review: { enabled: true } });
		expect(saveSelection(opts, {})).toMatchObject({ ok: true, raw: { review: { enabled: true } } });
		expect(readJson(ledgerPath())).toEqual({ review: { enabled: true } });
	});

	it("No advisor drops an effort passed along with it", () => {
		saveSelection(opts, { effort: "high" });
		expect(readJson(ledgerPath())).toEqual({});
	});

	it("effort off (or none) removes effort", () => {
		writeJson(ledgerPath(), { modelKey: "a/b", effort: "high" });
		saveSelection(opts, { modelKey: "a/b", effort: "off" });
		expect(readJson(ledgerPath())).toEqual({ modelKey: "a/b" });
		writeJson(ledgerPath(), { modelKey: "a/b", effort: "high" });
		saveSelection(opts, { modelKey: "a/b" });
		expect(readJson(ledgerPath())).toEqual({ modelKey: "a/b" });
	});

	it("writes the canonical provider/modelId form", () => {
		saveSelection(opts, { modelKey: "openrouter:anthropic/claude-sonnet-4" });
		expect(readJson(ledgerPath()).modelKey).toBe("openrouter/anthropic/claude-sonnet-4");
	});

	it("round-trips through loadConfig", () => {
		saveSelection(opts, { modelKey: "a/b", effort: "minimal" });
		expect(loadConfig(opts)).toMatchObject({ source: "ledger", config: { modelKey: "a/b", effort: "minimal" } });
	});

	it("carries rpiv-advisor's keys over when ours does not exist yet, leaving theirs untouched", () => {
		const rpiv = { modelKey: "openai:gpt-5", budget: { sessionUsd: 3 }, disabledForModels: ["x/y"] };
		writeJson(rpivPath(), rpiv);
		const before = readFileSync(rpivPath(), "utf8");
		expect(saveSelection(opts, { modelKey: "anthropic/claude-opus-4-1" }).ok).toBe(true);
		expect(readJson(ledgerPath())).toEqual({ ...rpiv, modelKey: "anthropic/claude-opus-4-1" });
		expect(readFileSync(rpivPath(), "utf8")).toBe(before);
		expect(loadConfig(opts).source).toBe("ledger");
	});

	it("writes through a symlinked advisor.json instead of replacing the link", () => {
		const real = join(home, "dotfiles", "advisor.json");
		writeJson(real, { budget: { sessionUsd: 2 } });
		mkdirSync(dirname(ledgerPath()), { recursive: true });
		symlinkSync(real, ledgerPath());
		expect(saveSelection(opts, { modelKey: "a/b" }).ok).toBe(true);
		expect(lstatSync(ledgerPath()).isSymbolicLink()).toBe(true);
		expect(readJson(real)).toEqual({ modelKey: "a/b", budget: { sessionUsd: 2 } });
		expect(modeOf(real)).toBe(0o600);
	});

	it("refuses to overwrite a malformed file (it would lose the hand edits)", () => {
		writeJson(ledgerPath(), '{"budget": {"sessionUsd": 2},');
		const result = saveSelection(opts, { modelKey: "a/b" });
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.message).toContain("not valid JSON");
		expect(readFileSync(ledgerPath(), "utf8")).toBe('{"budget": {"sessionUsd": 2},');
	});

	it("returns an error for an unparseable model key", () => {
		const result = saveSelection(opts, { modelKey: "no-separator" });
		expect(result).toMatchObject({ ok: false, path: ledgerPath() });
		expect(existsSync(ledgerPath())).toBe(false);
	});

	it("returns an error (does not throw) when the folder cannot be created", () => {
		writeJson(join(home, ".config", "pi-advisor-ledger"), "a file, not a folder");
		const result = saveSelection(opts, { modelKey: "a/b" });
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.message).toMatch(/EEXIST|ENOTDIR|not a directory/);
	});

	it.skipIf(process.getuid?.() === 0)(
		"returns an error (does not throw) for a read-only folder, file unchanged",
		() => {
			writeJson(ledgerPath(), { modelKey: "a/b" });
			const folder = dirname(ledgerPath());
			chmodSync(folder, 0o500);
			try {
				const result = saveSelection(opts, { modelKey: "c/d" });
				expect(result.ok).toBe(false);
				if (!result.ok) expect(result.message).toMatch(/EACCES|EPERM/);
				expect(readJson(ledgerPath())).toEqual({ modelKey: "a/b" });
			} finally {
				chmodSync(folder, 0o700);
			}
		},
	);

	// Root ignores folder permissions, so under root the same check runs as `nobody` in a child process.
	const RUNUSER = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find((p) => existsSync(p));
	it.runIf(process.getuid?.() === 0 && RUNUSER !== undefined)(
		"returns an error for a read-only folder when run as an unprivileged user",
		() => {
			const script = `
				import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
				import { tmpdir } from "node:os";
				import { join } from "node:path";
				import { saveSelection } from "./src/adapter/config.ts";
				const home = mkdtempSync(join(tmpdir(), "advisor-ro-"));
				const dir = join(home, ".config", "pi-advisor-ledger");
				mkdirSync(dir, { recursive: true });
				writeFileSync(join(dir, "advisor.json"), '{"modelKey":"a/b"}');
				chmodSync(dir, 0o500);
				const result = saveSelection({ env: {}, home }, { modelKey: "c/d" });
				const after = readFileSync(join(dir, "advisor.json"), "utf8");
				chmodSync(dir, 0o700);
				rmSync(home, { recursive: true, force: true });
				console.log(JSON.stringify({ uid: process.getuid(), result, after }));
			`;
			const out = execFileSync(
				RUNUSER!,
				["-u", "nobody", "--", process.execPath, "--import", "tsx", "--input-type=module", "-e", script],
				{ cwd: REPO_ROOT, encoding: "utf8" },
			);
			const { uid, result, after } = JSON.parse(out.trim().split("\n").at(-1)!);
			expect(uid).not.toBe(0);
			expect(result.ok).toBe(false);
			expect(result.message).toMatch(/EACCES|EPERM/);
			expect(after).toBe('{"modelKey":"a/b"}');
		},
	);

	it("property: hand-edited keys survive any selection byte-for-byte in value", () => {
		const handKey = fc.string({ minLength: 1 }).filter((k) => k !== "modelKey" && k !== "effort");
		fc.assert(
			fc.property(
				fc.dictionary(handKey, fc.jsonValue()),
				fc.option(fc.constantFrom("a/b", "openrouter:x/y:free")),
				fc.option(fc.constantFrom("minimal", "low", "medium", "high", "xhigh", "off" as const)),
				(hand, modelKey, effort) => {
					writeJson(ledgerPath(), JSON.stringify(hand));
					const result = saveSelection(opts, { modelKey: modelKey ?? undefined, effort: effort ?? undefined });
					expect(result.ok).toBe(true);
					const { modelKey: savedKey, effort: savedEffort, ...rest } = readJson(ledgerPath());
					expect(rest).toEqual(JSON.parse(JSON.stringify(hand)));
					expect(savedKey).toBe(modelKey === null ? undefined : modelKey.replace(":", "/"));
					expect(savedEffort).toBe(modelKey === null || effort === "off" ? undefined : (effort ?? undefined));
				},
			),
			{ numRuns: 100 },
		);
	});
});

describe("budget.contextBudgetTokens: 0", () => {
	it("is kept as 0 (trimming off), not replaced by the default with a warning", () => {
		const { config, invalidKeys } = parseConfig({ budget: { contextBudgetTokens: 0 } });
		expect(config.budget.contextBudgetTokens).toBe(0);
		expect(invalidKeys).toEqual([]);
	});
});
