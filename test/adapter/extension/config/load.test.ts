// advisor.json loaded: the defaults, unusable files, every key, per-key fallback, rpiv-advisor's file.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConfigLocation } from "../../../../src/adapter/extension/config/file.ts";
import { DEFAULT_ADVISOR_CONFIG, loadConfig, parseConfig } from "../../../../src/adapter/extension/config/load.ts";
import { DEFAULT_DENY_PATTERNS } from "../../../../src/adapter/extension/tools/index.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../../../src/render/index.ts";
import { DEFAULTS, ledgerPathIn, makeHome, rpivPathIn, writeJson } from "./support.ts";

let home: string;
let opts: ConfigLocation;

beforeEach(() => {
	({ home, opts } = makeHome());
});

afterEach(() => {
	rmSync(home, { recursive: true, force: true });
});

const ledgerPath = () => ledgerPathIn(home);
const rpivPath = () => rpivPathIn(home);

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
			instructionsMaxChars: 700,
			logTargetTokens: 0,
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
		watch: {
			enabled: true,
			failureStreak: 4,
			untestedFiles: 0,
			longRunRounds: 60,
			cooldownRounds: 2,
			maxNotesPerPrompt: 1,
			maxShare: 0.05,
		},
		advice: { maxChars: 200, maxOutputTokens: 0 },
		privacy: {
			redact: false,
			patterns: ["INTERNAL-[0-9]{6}", { pattern: "acme_[a-z0-9]{32}", kind: "acme-token" }],
			allow: ["sk_test_published", { pattern: "^AKIA[A-Z0-9]{12}TEST$" }],
		},
	};

	it("are all read when valid", () => {
		writeJson(ledgerPath(), full);
		const loaded = loadConfig(opts);
		expect(loaded.warnings).toEqual([]);
		expect(loaded.raw).toEqual(full);
		expect(loaded.config).toEqual({
			...full,
			disabledForModels: [{ model: "openai/gpt-5" }, { model: "anthropic:claude-opus-4-1", minEffort: "medium" }],
			privacy: {
				redact: false,
				patterns: [
					{ pattern: "INTERNAL-[0-9]{6}", kind: "custom" },
					{ pattern: "acme_[a-z0-9]{32}", kind: "acme-token" },
				],
				allow: [
					{ kind: "exact", value: "sk_test_published" },
					{ kind: "pattern", pattern: "^AKIA[A-Z0-9]{12}TEST$" },
				],
			},
		});
	});

	it("a bad privacy entry costs that entry only, with a line of its own after the invalid keys", () => {
		writeJson(ledgerPath(), {
			budget: { sessionUsd: -1 },
			privacy: { redact: "no", patterns: ["(a+)+", "ok-[0-9]{4}"], allow: [3] },
		});
		const loaded = loadConfig(opts);
		expect(loaded.config.privacy).toEqual({
			redact: true,
			patterns: [{ pattern: "ok-[0-9]{4}", kind: "custom" }],
			allow: [],
		});
		expect(loaded.config.budget.sessionUsd).toBe(20);
		expect(loaded.warnings).toEqual([
			`advisor.json: invalid value for budget.sessionUsd (a number ≥ 0) in ${ledgerPath()} — using the defaults for that key`,
			`advisor.json: privacy.redact must be true or false — redaction stays on (in ${ledgerPath()})`,
			`advisor.json: privacy.patterns[0] "(a+)+" could backtrack without bound (nested repetition) — skipped (in ${ledgerPath()})`,
			`advisor.json: privacy.allow[0] must be an exact string or {"pattern": "…"} — skipped (in ${ledgerPath()})`,
		]);
	});

	it("a configured denyPatterns replaces the default instead of extending it", () => {
		writeJson(ledgerPath(), { tools: { denyPatterns: ["*.secret"] } });
		expect(loadConfig(opts).config.tools.denyPatterns).toEqual(["*.secret"]);
		writeJson(ledgerPath(), { tools: { denyPatterns: [] } });
		expect(loadConfig(opts).config.tools.denyPatterns).toEqual([]);
	});

	it("unknown keys stay in raw, each warned about once with the nearest known key at its level", () => {
		const file = {
			modelKey: "a/b",
			budgt: { sessionUsd: 5 },
			tailToolCall: 3,
			budget: { maxUSD: 5, perCallSoftUsd: 2 },
			watch: { enable: true },
			disabledForModels: [{ model: "x/y", minEfort: "high" }],
			privacy: { redakt: false },
			futureKey: { x: 1 },
		};
		writeJson(ledgerPath(), file);
		const loaded = loadConfig(opts);
		const at = `(in ${ledgerPath()}, ignored)`;
		expect(loaded.warnings).toEqual([
			`advisor.json: unknown key "budgt" — did you mean "budget"? ${at}`,
			`advisor.json: unknown key "tailToolCall" — did you mean "ledger.tailToolCalls"? ${at}`,
			`advisor.json: unknown key "budget.maxUSD" ${at}`,
			`advisor.json: unknown key "watch.enable" — did you mean "watch.enabled"? ${at}`,
			`advisor.json: unknown key "disabledForModels[0].minEfort" — did you mean "disabledForModels[0].minEffort"? ${at}`,
			`advisor.json: unknown key "privacy.redakt" — did you mean "privacy.redact"? ${at}`,
			`advisor.json: unknown key "futureKey" ${at}`,
		]);
		// Ignored: the known keys beside them still apply, the defaults stand for the misspelt ones.
		expect(loaded.config.budget).toMatchObject({ perCallSoftUsd: 2, sessionUsd: 20 });
		expect(loaded.config.watch.enabled).toBe(false);
		expect(loaded.raw).toEqual(file);
	});

	it("rpiv-advisor's keys (carried over by the first save) are not warned about", () => {
		writeJson(ledgerPath(), { modelKey: "a/b", fallbackModels: ["openai/gpt-5"], guidance: { promptSnippet: "x" } });
		expect(loadConfig(opts).warnings).toEqual([]);
		writeJson(rpivPath(), { modelKey: "a/b", fallbackModels: ["openai/gpt-5"] });
		rmSync(ledgerPath());
		expect(loadConfig(opts)).toMatchObject({ source: "rpiv", warnings: [] });
	});

	it("a rejected value is named with what it allows: an enum its members, a number its range", () => {
		writeJson(ledgerPath(), {
			effort: "maximum",
			budget: { onExceed: "ask", timeoutSec: 0 },
			warming: { continueProbability: 2 },
			advice: { maxChars: 10 },
			review: { enabled: "yes" },
			guidance: { promptSnippet: 3 },
			disabledForModels: [7],
			tools: { denyPatterns: [""] },
			ledger: 3,
		});
		expect(loadConfig(opts).warnings).toEqual([
			`advisor.json: invalid values for disabledForModels[0] (a non-empty string or an object with model, minEffort), guidance.promptSnippet (a string or a list, each a string), ledger (an object), tools.denyPatterns (a list, each a non-empty string), budget.timeoutSec (a number > 0), budget.onExceed (one of confirm, skip), warming.continueProbability (a number ≥ 0 and ≤ 1), review.enabled (true or false), advice.maxChars (a whole number ≥ 200), effort (one of minimal, low, medium, high, xhigh, max, off) in ${ledgerPath()} — using the defaults for those keys`,
		]);
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
		expect(parseConfig({ advice: { maxChars: 4000 } }).config.advice).toEqual({
			maxChars: 4000,
			maxOutputTokens: 16384,
		});
		for (const maxChars of [199, 0, -5, 1.5, "16000", true]) {
			expect(parseConfig({ advice: { maxChars } })).toMatchObject({
				config: { advice: { maxChars: 16000 } },
				invalidKeys: ["advice.maxChars"],
			});
		}
	});

	it("advice.maxOutputTokens: an integer ≥ 0 (0 = pi-ai's default), else 16384", () => {
		expect(parseConfig({ advice: { maxOutputTokens: 0 } }).config.advice.maxOutputTokens).toBe(0);
		expect(parseConfig({ advice: { maxOutputTokens: 2048 } }).config.advice).toEqual({
			maxChars: 16000,
			maxOutputTokens: 2048,
		});
		for (const maxOutputTokens of [-1, 1.5, "4096", false]) {
			expect(parseConfig({ advice: { maxOutputTokens } })).toMatchObject({
				config: { advice: { maxOutputTokens: 16384 } },
				invalidKeys: ["advice.maxOutputTokens"],
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
		["ledger", "instructionsMaxChars", fc.nat(1000), fc.oneof(fc.constant(-1), fc.constant(2.5), fc.constant("300"))],
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
		["watch", "enabled", fc.boolean(), fc.constant("on")],
		["watch", "failureStreak", fc.nat(10), fc.oneof(fc.constant(-1), fc.constant(2.5))],
		["watch", "untestedFiles", fc.nat(50), fc.constant("8")],
		["watch", "longRunRounds", fc.nat(200), fc.constant(-40)],
		["watch", "cooldownRounds", fc.nat(20), fc.constant(1.5)],
		["watch", "maxNotesPerPrompt", fc.nat(5), fc.constant(true)],
		["watch", "maxShare", fc.double({ min: 0, max: 5, noNaN: true }), fc.constant(-0.1)],
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

	it("property: loadConfig never throws and warns at most once (unknown keys aside), whatever the file holds", () => {
		fc.assert(
			fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
				writeJson(ledgerPath(), text);
				const loaded = loadConfig(opts);
				// Besides one line per unknown key (a random object's keys are unknown).
				expect(
					loaded.warnings.filter((w) => !w.startsWith('advisor.json: unknown key "')).length,
				).toBeLessThanOrEqual(1);
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

describe("budget.contextBudgetTokens: 0", () => {
	it("is kept as 0 (trimming off), not replaced by the default with a warning", () => {
		const { config, invalidKeys } = parseConfig({ budget: { contextBudgetTokens: 0 } });
		expect(config.budget.contextBudgetTokens).toBe(0);
		expect(invalidKeys).toEqual([]);
	});
});
