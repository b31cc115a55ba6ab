/**
 * advisor.json, loaded (docs/configuration.md): every section read key by key against its schema, so
 * a bad value costs that key only, never the rest of the file. Each section's schema, defaults and
 * type live beside the rule that applies them: `ledger` in render/ledger-section.ts, `tools` in
 * tools/tools-section.ts, `privacy` in the core's events/redact/settings.ts (read by privacy.ts), the
 * selection keys in activation.ts, and guidance.ts, budget.ts, warming.ts, review.ts, watch.ts, advice.ts here.
 */

import type { ThinkingLevel } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { assertNever } from "../../../events/index.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig, LedgerSchema } from "../../../render/index.ts";
import { configInvalidKeys, configPrivacyWarning, configUnknownKey, configUnreadable } from "../pi/notices.ts";
import { DEFAULT_TOOLS_CONFIG, type ToolsConfig, ToolsSchema } from "../tools/tools-section.ts";
import {
	DisabledEntrySchema,
	type DisabledForModel,
	EffortSchema,
	ModelKeySchema,
	readDisabledForModels,
	toEffort,
} from "./activation.ts";
import { type AdviceConfig, AdviceSchema, DEFAULT_ADVICE_CONFIG } from "./advice.ts";
import { type BudgetConfig, BudgetSchema, DEFAULT_BUDGET_CONFIG } from "./budget.ts";
import { type ConfigLocation, configPaths, type JsonObject, readJsonObject } from "./file.ts";
import { describeSchema, schemaAt, unknownKeys } from "./file-keys.ts";
import { type GuidanceConfig, GuidanceFileSchema, resolveGuidanceSection } from "./guidance.ts";
import { DEFAULT_PRIVACY, PrivacySchema, type PrivacySettings, readPrivacy } from "./privacy.ts";
import { DEFAULT_REVIEW_CONFIG, type ReviewConfig, ReviewSchema } from "./review.ts";
import { partial, readLeaf, readSection, type Section } from "./section.ts";
import { DEFAULT_WARMING_CONFIG, type WarmingConfig, WarmingSchema } from "./warming.ts";
import { DEFAULT_WATCH_CONFIG, type WatchConfig, WatchSchema } from "./watch.ts";

export interface AdvisorConfig {
	/** As written in the file; activation parses it, and never writes it back (docs/configuration.md). */
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
	/** The standing reviewer (docs/configuration.md#the-watch). */
	watch: WatchConfig;
	advice: AdviceConfig;
	/** Redaction of what the advisor is sent (docs/privacy.md). */
	privacy: PrivacySettings;
}

export const DEFAULT_ADVISOR_CONFIG: Readonly<AdvisorConfig> = Object.freeze({
	disabledForModels: Object.freeze([]),
	guidance: Object.freeze({}),
	ledger: DEFAULT_LEDGER_CONFIG,
	tools: DEFAULT_TOOLS_CONFIG,
	budget: DEFAULT_BUDGET_CONFIG,
	warming: DEFAULT_WARMING_CONFIG,
	review: DEFAULT_REVIEW_CONFIG,
	watch: DEFAULT_WATCH_CONFIG,
	advice: DEFAULT_ADVICE_CONFIG,
	privacy: DEFAULT_PRIVACY,
});

/** The whole file, every key optional. For documentation and editors; loading checks key by key. */
export const AdvisorFileSchema = Type.Object({
	modelKey: Type.Optional(ModelKeySchema),
	effort: Type.Optional(EffortSchema),
	disabledForModels: Type.Optional(Type.Array(DisabledEntrySchema)),
	guidance: Type.Optional(partial(GuidanceFileSchema.properties)),
	ledger: Type.Optional(partial(LedgerSchema.properties)),
	tools: Type.Optional(partial(ToolsSchema.properties)),
	budget: Type.Optional(partial(BudgetSchema.properties)),
	warming: Type.Optional(partial(WarmingSchema.properties)),
	review: Type.Optional(partial(ReviewSchema.properties)),
	watch: Type.Optional(partial(WatchSchema.properties)),
	advice: Type.Optional(partial(AdviceSchema.properties)),
	privacy: Type.Optional(PrivacySchema),
});

function readGuidance(value: unknown, bad: string[]): GuidanceConfig {
	// No defaults: an absent key means "built-in", which resolveGuidance decides.
	const none = {} as Section<typeof GuidanceFileSchema.properties>;
	return resolveGuidanceSection(readSection("guidance", GuidanceFileSchema.properties, none, value, bad));
}

/**
 * rpiv-advisor's keys this extension does not read (`fallbackModels`): carried over from its file
 * (docs/configuration.md, "Where the file lives"), so they are not warned about as typos.
 */
export const RPIV_ONLY_KEYS: readonly string[] = Object.freeze(["fallbackModels"]);

/**
 * Validates a parsed file key by key. Unknown keys are ignored (they stay in `raw`). The privacy
 * section reports each bad entry itself (`privacyWarnings`), the rest by key (`invalidKeys`).
 */
export function parseConfig(raw: JsonObject): {
	config: AdvisorConfig;
	invalidKeys: string[];
	privacyWarnings: string[];
} {
	const bad: string[] = [];
	const privacyWarnings: string[] = [];
	const config: AdvisorConfig = {
		disabledForModels: readDisabledForModels(raw.disabledForModels, bad),
		guidance: readGuidance(raw.guidance, bad),
		ledger: readSection("ledger", LedgerSchema.properties, { ...DEFAULT_LEDGER_CONFIG }, raw.ledger, bad),
		tools: readSection(
			"tools",
			ToolsSchema.properties,
			{ ...DEFAULT_TOOLS_CONFIG, denyPatterns: [...DEFAULT_TOOLS_CONFIG.denyPatterns] },
			raw.tools,
			bad,
		),
		budget: readSection("budget", BudgetSchema.properties, { ...DEFAULT_BUDGET_CONFIG }, raw.budget, bad),
		warming: readSection("warming", WarmingSchema.properties, { ...DEFAULT_WARMING_CONFIG }, raw.warming, bad),
		review: readSection("review", ReviewSchema.properties, { ...DEFAULT_REVIEW_CONFIG }, raw.review, bad),
		watch: readSection("watch", WatchSchema.properties, { ...DEFAULT_WATCH_CONFIG }, raw.watch, bad),
		advice: readSection("advice", AdviceSchema.properties, { ...DEFAULT_ADVICE_CONFIG }, raw.advice, bad),
		privacy: readPrivacy(raw.privacy, privacyWarnings),
	};
	const modelKey = readLeaf("modelKey", ModelKeySchema, raw.modelKey, bad);
	if (modelKey !== undefined) config.modelKey = modelKey;
	const effort = toEffort(readLeaf("effort", EffortSchema, raw.effort, bad));
	if (effort !== undefined) config.effort = effort;
	return { config, invalidKeys: bad, privacyWarnings };
}

/**
 * The warnings a parsed file gives, in order: one naming every rejected key with what it allows,
 * one per bad privacy entry, one per unknown key with the nearest known one.
 */
export function configWarnings(
	path: string,
	raw: JsonObject,
	parsed: { invalidKeys: readonly string[]; privacyWarnings: readonly string[] },
): string[] {
	const warnings: string[] = [];
	if (parsed.invalidKeys.length > 0) {
		const keys = parsed.invalidKeys.map((key) => {
			const schema = schemaAt(AdvisorFileSchema, key);
			return schema === undefined ? { key } : { key, allowed: describeSchema(schema) };
		});
		warnings.push(configInvalidKeys(path, keys));
	}
	for (const warning of parsed.privacyWarnings) warnings.push(configPrivacyWarning(path, warning));
	for (const { key, suggestion } of unknownKeys(raw, AdvisorFileSchema, RPIV_ONLY_KEYS))
		warnings.push(configUnknownKey(path, key, suggestion));
	return warnings;
}

export type ConfigSource = "ledger" | "rpiv" | "default";

export interface LoadedConfig {
	config: AdvisorConfig;
	/** The parsed file as written (unknown keys included); `{}` when nothing usable was read. */
	raw: JsonObject;
	/** The file the values came from, the unusable file that was skipped, or where ours would be. */
	path: string;
	source: ConfigSource;
	/**
	 * Either the one line saying the file was unusable, or at most one naming the keys that fell
	 * back, then one per bad entry of the privacy section, then one per unknown key.
	 */
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
				const parsed = parseConfig(read.raw);
				return {
					config: parsed.config,
					raw: read.raw,
					path,
					source,
					warnings: configWarnings(path, read.raw, parsed),
				};
			}
			default:
				return assertNever(read, "advisor.json read");
		}
	}
	return { config: defaults(), raw: {}, path: paths.ledger, source: "default", warnings: [] };
}
