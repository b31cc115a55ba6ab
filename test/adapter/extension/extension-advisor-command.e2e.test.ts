/**
 * /advisor (docs/configuration.md) on the real host, with a scripted UI driving the pickers key by key.
 */

import { readFileSync, statSync, writeFileSync } from "node:fs";
import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { resetRestoredAnnouncement } from "../../../src/adapter/extension/host/activation-state.ts";
import { PICKER_HINT, SAVE_FAILED } from "../../../src/adapter/extension/pi/notices.ts";
import {
	ADVISOR_MODEL,
	ADVISOR_NAME,
	ADVISOR_PROVIDER,
	type Host,
	type HostOptions,
	KEYS,
	readJson,
	startHost,
} from "../../support/pi-host.ts";

const ADVISORS = {
	provider: ADVISOR_PROVIDER,
	models: [
		{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true },
		{ id: "advisor-lite", name: "Advisor Lite", reasoning: false },
	],
};

let host: Host | undefined;
afterEach(async () => {
	await host?.dispose();
	host = undefined;
});

async function start(options: Partial<HostOptions>): Promise<Host> {
	resetRestoredAnnouncement();
	host = await startHost({ executor: [fauxAssistantMessage("ok")], advisorProvider: ADVISORS, ...options });
	host.notifications.length = 0;
	return host;
}

const typed = (text: string) => [...text];
const isActive = (h: Host) => h.runtime.session.getActiveToolNames().includes("advisor");
/** The list rows of a picker frame: between the title + search line and the hint. */
const rows = (frame: string[]) => frame.slice(2, -1);

describe("picking a model and an effort", () => {
	it("saves both (0600), applies them, and says so", async () => {
		const h = await start({ pickerKeys: [[...typed("advisor one"), KEYS.enter], [KEYS.enter]] });
		await h.runtime.session.prompt("/advisor");

		const [models, efforts] = h.pickers;
		const opened = models!.frames[0]!;
		expect(opened[0]).toBe("Advisor model · watch off");
		expect(rows(opened)[0]).toMatch(/^→ No advisor\s+turn the advisor off$/);
		expect(opened.at(-1)).toBe(PICKER_HINT);
		expect(rows(opened)).toContain(`  ${ADVISOR_NAME} (${ADVISOR_PROVIDER}/${ADVISOR_MODEL})`);
		expect(models!.result).toBe(`${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`);

		expect(efforts!.frames[0]![0]).toBe(`Advisor effort for ${ADVISOR_NAME} (${ADVISOR_PROVIDER}/${ADVISOR_MODEL})`);
		expect(rows(efforts!.frames[0]!)).toEqual([
			"  off (no reasoning sent)",
			"  minimal",
			"  low",
			"  medium",
			"→ high (recommended)",
		]);
		expect(efforts!.result).toBe("high");

		expect(readJson(h.configFile)).toEqual({ modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`, effort: "high" });
		expect(readFileSync(h.configFile, "utf8").endsWith("}\n")).toBe(true);
		expect(statSync(h.configFile).mode & 0o777).toBe(0o600);
		expect(isActive(h)).toBe(true);
		expect(h.notifications).toEqual([
			{ message: `Advisor set to ${ADVISOR_NAME} (${ADVISOR_PROVIDER}/${ADVISOR_MODEL}), high`, type: "info" },
		]);
	});

	it("filters fuzzily over provider/modelId; a model without reasoning gets no effort picker", async () => {
		const h = await start({ pickerKeys: [[...typed("faux/lite"), KEYS.enter]] });
		await h.runtime.session.prompt("/advisor");
		expect(h.pickers).toHaveLength(1);
		expect(rows(h.pickers[0]!.frames.at(-2)!)).toEqual(["→ Advisor Lite (advisor-faux/advisor-lite)"]);
		expect(readJson(h.configFile)).toEqual({ modelKey: `${ADVISOR_PROVIDER}/advisor-lite` });
		expect(h.notifications).toEqual([
			{ message: "Advisor set to Advisor Lite (advisor-faux/advisor-lite)", type: "info" },
		]);
	});

	it("↑ on the first row wraps to the last", async () => {
		const h = await start({ pickerKeys: [[KEYS.up, KEYS.escape]] });
		await h.runtime.session.prompt("/advisor");
		const [opened, afterUp] = h.pickers[0]!.frames;
		expect(rows(opened!)[0]!.startsWith("→ ")).toBe(true);
		const wrapped = rows(afterUp!);
		expect(wrapped.filter((row) => row.startsWith("→ "))).toHaveLength(1);
		expect(wrapped[0]!.startsWith("→ ")).toBe(false);
	});

	it("re-opening preselects the current model and its effort", async () => {
		const h = await start({
			advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`, effort: "low" },
			pickerKeys: [[KEYS.enter], [KEYS.enter]],
		});
		await h.runtime.session.prompt("/advisor");
		expect(h.pickers[0]!.result).toBe(`${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`);
		expect(h.pickers[1]!.result).toBe("low");
	});
});

describe("changing nothing", () => {
	it("Esc in either picker leaves the file and the tool set as they were", async () => {
		const config = { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`, effort: "medium", review: { enabled: false } };
		const h = await start({ advisorConfig: config, pickerKeys: [[KEYS.escape], [KEYS.enter], [KEYS.escape]] });
		const before = readFileSync(h.configFile, "utf8");
		await h.runtime.session.prompt("/advisor");
		await h.runtime.session.prompt("/advisor");
		expect(readFileSync(h.configFile, "utf8")).toBe(before);
		expect(isActive(h)).toBe(true);
		expect(h.notifications).toEqual([]);
	});

	it("without a UI it only says that it needs one (on stderr: see extension-print-notices.e2e.test.ts)", async () => {
		const h = await start({ ui: false, advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}` } });
		const before = readFileSync(h.configFile, "utf8");
		await h.runtime.session.prompt("/advisor");
		expect(readFileSync(h.configFile, "utf8")).toBe(before);
		expect(h.pickers).toHaveLength(0);
		expect(h.notifications).toEqual([]);
	});
});

describe("turning it off", () => {
	it("`No advisor` removes modelKey and effort, keeps every other key, and strips the tool", async () => {
		const h = await start({
			advisorConfig: {
				modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`,
				effort: "high",
				ledger: { tailToolCalls: 3 },
				customKey: "kept",
			},
			pickerKeys: [[...typed("turn"), KEYS.enter]],
		});
		expect(isActive(h)).toBe(true);
		await h.runtime.session.prompt("/advisor");
		expect(readJson(h.configFile)).toEqual({ ledger: { tailToolCalls: 3 }, customKey: "kept" });
		expect(isActive(h)).toBe(false);
		// The key no version knows is warned about (once, when the file is read) and still kept.
		expect(h.notifications).toEqual([
			{
				message: `advisor.json: unknown key "customKey" (in ${h.configFile}, ignored)`,
				type: "warning",
			},
			{ message: "Advisor turned off", type: "info" },
		]);
	});
});

describe("a saved choice that is not active", () => {
	const NOKEY = {
		provider: "advisor-nokey",
		models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true }],
		oauthWithoutLogin: true,
	};

	it("a key not in the registry: shown second, selected, with why; choosing it changes nothing and says why again", async () => {
		const h = await start({
			advisorConfig: { modelKey: "advisor-faux/adv-2", effort: "high", customKey: "kept" },
			pickerKeys: [[KEYS.enter], [KEYS.escape]],
		});
		const before = readFileSync(h.configFile, "utf8");
		await h.runtime.session.prompt("/advisor");
		const opened = rows(h.pickers[0]!.frames[0]!);
		expect(opened[0]).toMatch(/^ {2}No advisor\s+turn the advisor off$/);
		expect(opened[1]).toMatch(/^→ advisor-faux\/adv-2\s+saved, inactive: not in Pi's model registry$/);
		expect(h.notifications).toEqual([
			{
				message: `advisor.json: modelKey "advisor-faux/adv-2" in ${h.configFile} names no model in Pi's registry (a typo, or a provider that was removed) — advisor off for this session; the file is left as it is`,
				type: "warning",
			},
		]);
		await h.runtime.session.prompt("/advisor");
		expect(readFileSync(h.configFile, "utf8")).toBe(before);
		expect(isActive(h)).toBe(false);
		expect(h.notifications).toHaveLength(1);
	});

	it("a model without credentials: by name and key, with its provider; `No advisor` still saves as usual", async () => {
		const h = await start({
			advisorProvider: NOKEY,
			advisorConfig: { modelKey: `advisor-nokey/${ADVISOR_MODEL}`, ledger: { tailToolCalls: 3 } },
			pickerKeys: [[KEYS.escape], [KEYS.up, KEYS.enter]],
		});
		await h.runtime.session.prompt("/advisor");
		const opened = rows(h.pickers[0]!.frames[0]!);
		expect(opened[1]).toMatch(
			new RegExp(
				`^→ ${ADVISOR_NAME} \\(advisor-nokey/${ADVISOR_MODEL}\\)\\s+saved, inactive: no API key or login for advisor-nokey$`,
			),
		);
		// The model is not offered to be picked again: /advisor lists what Pi has credentials for.
		expect(opened.filter((row) => row.includes(`advisor-nokey/${ADVISOR_MODEL}`))).toHaveLength(1);
		expect(readJson(h.configFile)).toEqual({
			modelKey: `advisor-nokey/${ADVISOR_MODEL}`,
			ledger: { tailToolCalls: 3 },
		});
		// ↑ from the saved row is `No advisor`: the pickers write the file as usual (only modelKey and effort).
		await h.runtime.session.prompt("/advisor");
		expect(h.pickers[1]!.result).toBe("");
		expect(readJson(h.configFile)).toEqual({ ledger: { tailToolCalls: 3 } });
		expect(h.notifications.at(-1)).toEqual({ message: "Advisor turned off", type: "info" });
	});
});

describe("a failed save", () => {
	it("changes nothing and says `Failed to save advisor selection — selection not persisted`", async () => {
		const h = await start({
			advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}` },
			pickerKeys: [[...typed("turn"), KEYS.enter]],
		});
		expect(isActive(h)).toBe(true);
		// A hand edit broke the file while Pi was running: saving over it would destroy the edit.
		writeFileSync(h.configFile, "{ not json");
		await h.runtime.session.prompt("/advisor");
		expect(readFileSync(h.configFile, "utf8")).toBe("{ not json");
		expect(isActive(h)).toBe(true);
		expect(h.notifications).toEqual([{ message: SAVE_FAILED, type: "error" }]);
	});
});
