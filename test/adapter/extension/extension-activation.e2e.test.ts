/**
 * docs/architecture.md on the real host: advisor() is always registered, and in the active set (with its
 * snippet and guidelines in the executor's system prompt) only when an advisor model is usable
 * for the current executor. Every lifecycle hook re-decides.
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { resetRestoredAnnouncement } from "../../../src/adapter/extension/host/activation-state.ts";
import { DEFAULT_PROMPT_GUIDELINES, DEFAULT_PROMPT_SNIPPET } from "../../../src/render/index.ts";
import {
	ADVISOR_MODEL,
	ADVISOR_NAME,
	ADVISOR_PROVIDER,
	EXECUTOR_MODEL,
	EXECUTOR_PROVIDER,
	type Host,
	type HostOptions,
	startHost,
} from "../../support/pi-host.ts";

const ADVISOR_KEY = `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`;
const TWO_EXECUTORS = [
	{ id: EXECUTOR_MODEL, reasoning: true },
	{ id: "executor-2", reasoning: true },
];

let host: Host | undefined;
afterEach(async () => {
	await host?.dispose();
	host = undefined;
});

async function start(options: Partial<HostOptions>): Promise<Host> {
	resetRestoredAnnouncement();
	host = await startHost({ executor: [fauxAssistantMessage("ok")], ...options });
	return host;
}

const isActive = (h: Host) => h.runtime.session.getActiveToolNames().includes("advisor");
const isRegistered = (h: Host) => h.runtime.session.getAllTools().some((t) => t.name === "advisor");

describe("off costs nothing", () => {
	it("with no model selected the tool is registered but inactive, and the system prompt never mentions it", async () => {
		const h = await start({});
		expect(isRegistered(h)).toBe(true);
		expect(isActive(h)).toBe(false);
		expect(h.runtime.session.systemPrompt).not.toContain(DEFAULT_PROMPT_SNIPPET);
		expect(h.runtime.session.systemPrompt).not.toContain(DEFAULT_PROMPT_GUIDELINES[0]!);
		expect(h.notifications).toEqual([]);
	});

	it("with a model selected the tool is active, with the default snippet and guidelines", async () => {
		const h = await start({ advisorConfig: { modelKey: ADVISOR_KEY } });
		expect(isActive(h)).toBe(true);
		const prompt = h.runtime.session.systemPrompt;
		expect(prompt).toContain(DEFAULT_PROMPT_SNIPPET);
		for (const guideline of DEFAULT_PROMPT_GUIDELINES) expect(prompt).toContain(guideline);
	});

	it("guidance from advisor.json replaces the built-in wording", async () => {
		const h = await start({
			advisorConfig: {
				modelKey: ADVISOR_KEY,
				guidance: {
					promptSnippet: "Ask the senior reviewer",
					promptGuidelines: ["Call advisor before every commit."],
				},
			},
		});
		const prompt = h.runtime.session.systemPrompt;
		expect(prompt).toContain("Ask the senior reviewer");
		expect(prompt).toContain("Call advisor before every commit.");
		expect(prompt).not.toContain(DEFAULT_PROMPT_SNIPPET);
	});
});

describe("session_start", () => {
	it("announces the restored selection once per process", async () => {
		const h = await start({ advisorConfig: { modelKey: ADVISOR_KEY } });
		expect(h.notifications).toEqual([
			{ message: "Advisor restored: Advisor One (advisor-faux/advisor-1)", type: "info" },
		]);
		await h.runtime.newSession();
		expect(isActive(h)).toBe(true);
		expect(h.notifications.filter((n) => n.message.startsWith("Advisor restored"))).toHaveLength(1);
	});

	it("strips the tool when the advisor has the executor's model id (any provider)", async () => {
		const h = await start({
			advisorProvider: { provider: ADVISOR_PROVIDER, models: [{ id: EXECUTOR_MODEL, reasoning: true }] },
			advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/${EXECUTOR_MODEL}` },
		});
		expect(isRegistered(h)).toBe(true);
		expect(isActive(h)).toBe(false);
	});

	it("a key not in the registry turns the advisor off with one warning, and the file is left byte for byte", async () => {
		const h = await start({ advisorConfig: { review: { enabled: true } } });
		// Hand-written: its own spacing, key order and no final newline, so a rewrite would show.
		const text = `{ "effort":"high",\n  "modelKey" : "${ADVISOR_PROVIDER}/retired-model", "review": {"enabled": true} }`;
		writeFileSync(h.configFile, text);
		h.notifications.length = 0;
		await h.runtime.newSession();
		// After /new the warning waits for the host's chat rebuild (a zero-delay timer), like the config warnings.
		await new Promise((resolve) => setTimeout(resolve, 0));
		await h.runtime.session.prompt("hello");
		expect(isActive(h)).toBe(false);
		expect(h.runtime.session.systemPrompt).not.toContain(DEFAULT_PROMPT_SNIPPET);
		expect(h.notifications).toEqual([
			{
				message: `advisor.json: modelKey "${ADVISOR_PROVIDER}/retired-model" in ${h.configFile} names no model in Pi's registry (a typo, or a provider that was removed) — advisor off for this session; the file is left as it is`,
				type: "warning",
			},
		]);
		expect(readFileSync(h.configFile, "utf8")).toBe(text);
	});

	it("a model without credentials is not switched on: one warning naming its provider, no `Advisor restored`", async () => {
		const h = await start({
			advisorProvider: {
				provider: "advisor-nokey",
				models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true }],
				oauthWithoutLogin: true,
			},
			advisorConfig: { modelKey: `advisor-nokey/${ADVISOR_MODEL}`, effort: "high" },
		});
		const before = readFileSync(h.configFile, "utf8");
		await h.runtime.session.prompt("hello");
		expect(isActive(h)).toBe(false);
		expect(h.runtime.session.systemPrompt).not.toContain(DEFAULT_PROMPT_SNIPPET);
		expect(h.notifications).toEqual([
			{
				message: `advisor.json: modelKey "advisor-nokey/${ADVISOR_MODEL}" in ${h.configFile} has no credentials: Pi has no API key or login for provider advisor-nokey — advisor off for this session; the file is left as it is`,
				type: "warning",
			},
		]);
		expect(readFileSync(h.configFile, "utf8")).toBe(before);
	});

	it("a login later in the session applies the saved model from the next prompt, and says so", async () => {
		const h = await start({
			executor: [fauxAssistantMessage("one"), fauxAssistantMessage("two")],
			advisorProvider: {
				provider: "advisor-nokey",
				models: [{ id: ADVISOR_MODEL, name: ADVISOR_NAME, reasoning: true }],
				oauthWithoutLogin: true,
			},
			advisorConfig: { modelKey: `advisor-nokey/${ADVISOR_MODEL}` },
		});
		await h.runtime.session.prompt("hello");
		expect(isActive(h)).toBe(false);
		// What /login (or a key stored in auth.json) does to Pi's auth storage.
		h.modelRegistry.authStorage.set("advisor-nokey", { type: "api_key", key: "sk-later" });
		await h.runtime.session.prompt("again");
		expect(isActive(h)).toBe(true);
		expect(h.notifications.map((n) => n.type)).toEqual(["warning", "info"]);
		expect(h.notifications[1]!.message).toBe(`Advisor restored: ${ADVISOR_NAME} (advisor-nokey/${ADVISOR_MODEL})`);
	});

	it("a bad value costs that key only, with one warning", async () => {
		const h = await start({ advisorConfig: { modelKey: ADVISOR_KEY, ledger: { tailToolCalls: "many" } } });
		expect(isActive(h)).toBe(true);
		const warnings = h.notifications.filter((n) => n.type === "warning");
		expect(warnings).toHaveLength(1);
		expect(warnings[0]!.message).toContain("ledger.tailToolCalls");
	});

	it("reads rpiv-advisor's file when its own is absent", async () => {
		resetRestoredAnnouncement();
		const h = await start({});
		const rpiv = join(h.configHome, "rpiv-advisor", "advisor.json");
		mkdirSync(dirname(rpiv), { recursive: true });
		writeFileSync(rpiv, JSON.stringify({ modelKey: `${ADVISOR_PROVIDER}:${ADVISOR_MODEL}` }));
		await h.runtime.newSession();
		expect(isActive(h)).toBe(true);
		expect(existsSync(h.configFile)).toBe(false);
	});
});

describe("model_select and thinking_level_select", () => {
	it("switching to a disabled executor strips the tool and says so; switching back restores it", async () => {
		const h = await start({
			executorModels: TWO_EXECUTORS,
			advisorConfig: { modelKey: ADVISOR_KEY, disabledForModels: [`${EXECUTOR_PROVIDER}/executor-2`] },
		});
		expect(isActive(h)).toBe(true);
		await h.runtime.session.setModel(h.modelRegistry.find(EXECUTOR_PROVIDER, "executor-2")!);
		expect(isActive(h)).toBe(false);
		expect(h.notifications).toContainEqual({
			message: `Advisor disabled for ${EXECUTOR_PROVIDER}/executor-2`,
			type: "info",
		});
		await h.runtime.session.setModel(h.modelRegistry.find(EXECUTOR_PROVIDER, EXECUTOR_MODEL)!);
		expect(isActive(h)).toBe(true);
	});

	it("minEffort blocks from that level up (ties block); off never matches", async () => {
		const h = await start({
			thinkingLevel: "off",
			advisorConfig: {
				modelKey: ADVISOR_KEY,
				disabledForModels: [{ model: `${EXECUTOR_PROVIDER}:${EXECUTOR_MODEL}`, minEffort: "high" }],
			},
		});
		// thinking_level_select is emitted without being awaited: let it run.
		const setLevel = async (level: "off" | "medium" | "high" | "xhigh") => {
			h.runtime.session.setThinkingLevel(level);
			await new Promise((resolve) => setImmediate(resolve));
		};
		expect(isActive(h)).toBe(true);
		await setLevel("high");
		expect(isActive(h)).toBe(false);
		await setLevel("medium");
		expect(isActive(h)).toBe(true);
		await setLevel("xhigh");
		expect(isActive(h)).toBe(false);
		await setLevel("off");
		expect(isActive(h)).toBe(true);
	});

	it("before_agent_start re-decides: a prompt after a mid-run change starts with the right tool set", async () => {
		const h = await start({ executorModels: TWO_EXECUTORS, advisorConfig: { modelKey: ADVISOR_KEY } });
		// Another extension (or a user tool toggle) strips it; the next prompt puts it back.
		h.runtime.session.setActiveToolsByName(h.runtime.session.getActiveToolNames().filter((n) => n !== "advisor"));
		expect(isActive(h)).toBe(false);
		await h.runtime.session.prompt("hello");
		expect(isActive(h)).toBe(true);
	});
});
