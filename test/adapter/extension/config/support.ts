/**
 * Shared by the advisor.json tests: a temporary home per test, file helpers, and the documented
 * defaults written out by hand (docs/configuration.md), so a changed default fails a test.
 */
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ConfigLocation } from "../../../../src/adapter/extension/config/file.ts";
import type { AdvisorConfig } from "../../../../src/adapter/extension/config/load.ts";

/** A fresh home with no config in it; the caller removes it. */
export function makeHome(): { home: string; opts: ConfigLocation } {
	const home = mkdtempSync(join(tmpdir(), "advisor-config-"));
	return { home, opts: { env: {}, home } };
}

export const ledgerPathIn = (home: string) => join(home, ".config", "pi-advisor-ledger", "advisor.json");
export const rpivPathIn = (home: string) => join(home, ".config", "rpiv-advisor", "advisor.json");

export function writeJson(path: string, value: unknown): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

export const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, "utf8"));
export const modeOf = (path: string) => statSync(path).mode & 0o777;

export const DEFAULTS: AdvisorConfig = {
	disabledForModels: [],
	guidance: {},
	ledger: {
		tailToolCalls: 1,
		tailMaxChars: 8000,
		tailResultMaxChars: 1000,
		userMessageMaxChars: 20000,
		customPreviewChars: 500,
		proseMaxChars: 300,
		instructionsMaxChars: 4000,
		logTargetTokens: 10000,
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
	watch: {
		enabled: false,
		failureStreak: 3,
		untestedFiles: 8,
		longRunRounds: 50,
		cooldownRounds: 0,
		maxNotesPerPrompt: 2,
		maxShare: 0.1,
	},
	advice: { maxChars: 16000, maxOutputTokens: 16384 },
	privacy: { redact: true, patterns: [], allow: [] },
};
