/**
 * /advisor's pieces without a host: the no-UI message, the effort list, and the picker component.
 */

import type { Api, Model } from "@mariozechner/pi-ai";
import { fuzzyMatch } from "@mariozechner/pi-tui";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAdvisorRuntime } from "../../../../src/adapter/extension/host/activation-state.ts";
import {
	createAdvisorCommand,
	effortPickerSpec,
	modelPickerSpec,
	supportedEfforts,
} from "../../../../src/adapter/extension/host/advisor-command.ts";
import {
	FilterPicker,
	PICKER_MAX_ROWS,
	PICKER_SCORE_MARGIN,
	type PickerItem,
	pick,
	rankPickerItems,
} from "../../../../src/adapter/extension/host/picker.ts";
import {
	EXECUTOR_OWN_MODEL,
	PICKER_HINT,
	PICKER_NO_MATCH,
	REQUIRES_INTERACTIVE,
} from "../../../../src/adapter/extension/pi/notices.ts";
import { KEYS } from "../../../support/pi-host.ts";
import { testTempDir } from "../../../support/temp.ts";

const plain = { fg: (_c: string, t: string) => t, bold: (t: string) => t };

function model(id: string, extra: Partial<Model<Api>> = {}): Model<Api> {
	return {
		id,
		name: id.toUpperCase(),
		api: "openai-completions",
		provider: "prov",
		baseUrl: "http://localhost:0",
		reasoning: true,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 1000,
		maxTokens: 100,
		...extra,
	} as Model<Api>;
}

describe("without a UI", () => {
	it("says `/advisor requires interactive mode` on stderr (Pi's notify is silent there) and does nothing else", async () => {
		const notes: [string, string | undefined][] = [];
		const stderr: string[] = [];
		const runtime = createAdvisorRuntime({ env: { XDG_CONFIG_HOME: testTempDir("adv-cmd-") } });
		const command = createAdvisorCommand({
			pi: {
				getActiveTools: () => {
					throw new Error("must not touch tools");
				},
				setActiveTools: () => {},
				getThinkingLevel: () => "off",
				getAllTools: () => [],
			},
			runtime,
			stderr: (line) => stderr.push(line),
		});
		const ctx = { hasUI: false, ui: { notify: (m: string, t?: string) => notes.push([m, t]) } };
		await command.handler("", ctx as never);
		expect(stderr).toEqual([REQUIRES_INTERACTIVE]);
		expect(notes).toEqual([]);
	});
});

describe("effort levels", () => {
	it("a model without reasoning has only off", () => {
		expect(supportedEfforts(model("m", { reasoning: false }))).toEqual(["off"]);
	});

	it("a reasoning model has off through high; xhigh only when mapped; a null mapping removes a level", () => {
		expect(supportedEfforts(model("m"))).toEqual(["off", "minimal", "low", "medium", "high"]);
		expect(supportedEfforts(model("m", { thinkingLevelMap: { xhigh: "max", minimal: null } }))).toEqual([
			"off",
			"low",
			"medium",
			"high",
			"xhigh",
		]);
	});

	it("the picker labels off and the recommended level, and preselects the current level or high", () => {
		const spec = effortPickerSpec(model("m"), undefined);
		expect(spec.items.map((i) => i.label)).toEqual([
			"off (no reasoning sent)",
			"minimal",
			"low",
			"medium",
			"high (recommended)",
		]);
		expect(spec.initialValue).toBe("high");
		expect(effortPickerSpec(model("m"), "off").initialValue).toBe("off");
	});
});

describe("the picker", () => {
	const many = Array.from({ length: 14 }, (_, i) => model(`model-${String(i).padStart(2, "0")}`));

	it("lists `No advisor` first and at most ten rows, with the hint; the title says whether the watch is on", () => {
		const picker = new FilterPicker(
			modelPickerSpec(many, undefined),
			plain,
			() => {},
			() => {},
		);
		const lines = picker.render(100);
		expect(lines[0]).toBe("Advisor model · watch off");
		expect(
			new FilterPicker(
				modelPickerSpec(many, undefined, undefined, undefined, true),
				plain,
				() => {},
				() => {},
			).render(100)[0],
		).toBe("Advisor model · watch on");
		expect(lines.at(-1)).toBe(PICKER_HINT);
		const rows = lines.slice(2, -1);
		expect(rows.filter((r) => !r.trimStart().startsWith("("))).toHaveLength(PICKER_MAX_ROWS);
		expect(rows[0]).toMatch(/^→ No advisor/);
		expect(rows.at(-1)).toMatch(/\(1\/15\)/);
	});

	it("filters over label and provider/modelId, says when nothing matches, and backspace widens again", () => {
		let chosen: string | undefined = "unset";
		const picker = new FilterPicker(
			modelPickerSpec(many, undefined),
			plain,
			() => {},
			(v) => {
				chosen = v;
			},
		);
		for (const key of "prov/model-13") picker.handleInput(key);
		expect(picker.visibleValues()).toEqual(["prov/model-13"]);
		picker.handleInput("#");
		expect(picker.visibleValues()).toEqual([]);
		expect(picker.render(100)).toContain(`  ${PICKER_NO_MATCH}`);
		picker.handleInput(KEYS.enter);
		expect(chosen).toBe("unset");
		picker.handleInput(KEYS.backspace);
		picker.handleInput(KEYS.enter);
		expect(chosen).toBe("prov/model-13");
	});

	it("Esc resolves with nothing, even with no rows left", () => {
		let chosen: string | undefined = "unset";
		const picker = new FilterPicker(
			modelPickerSpec(many, undefined),
			plain,
			() => {},
			(v) => {
				chosen = v;
			},
		);
		for (const key of "zzzz") picker.handleInput(key);
		picker.handleInput(KEYS.escape);
		expect(chosen).toBeUndefined();
	});

	it("falls back to a plain select dialog on hosts without custom components (RPC)", async () => {
		const ui = {
			custom: async () => undefined,
			select: async (_title: string, options: string[]) => options[2],
		};
		const value = await pick(ui as never, modelPickerSpec(many, undefined));
		expect(value).toBe("prov/model-01");
	});
});

describe("the model picker's rows and filter", () => {
	/** The models of a mock setup like the one the issue was found with. */
	const models = [
		model("adv-r", { provider: "mock", name: "Advisor Reasoner" }),
		model("adv-lite", { provider: "mock", name: "Advisor Lite", reasoning: false }),
		model("exec-1", { provider: "mock", name: "Mock Executor" }),
		model("claude-opus-4-5", { provider: "anthropic", name: "Claude Opus 4.5" }),
	];
	const spec = modelPickerSpec(models, undefined);
	const labels = (query: string) => rankPickerItems(spec.items, query).map((item) => item.label);

	it("each model row is spelled by name and provider/model, with nothing else", () => {
		expect(spec.items.map((item) => [item.label, item.description])).toEqual([
			["No advisor", "turn the advisor off"],
			["Advisor Reasoner (mock/adv-r)", undefined],
			["Advisor Lite (mock/adv-lite)", undefined],
			["Mock Executor (mock/exec-1)", undefined],
			["Claude Opus 4.5 (anthropic/claude-opus-4-5)", undefined],
		]);
	});

	it("the executor's own model is marked before it is chosen (the same id, any provider), the rest are not", () => {
		const marked = modelPickerSpec(
			[...models, model("exec-1", { provider: "other", name: "Elsewhere" })],
			undefined,
			{
				id: "exec-1",
			},
		);
		expect(marked.items.filter((item) => item.description === EXECUTOR_OWN_MODEL).map((item) => item.label)).toEqual([
			"Mock Executor (mock/exec-1)",
			"Elsewhere (other/exec-1)",
		]);
		expect(marked.items.filter((item) => item.description !== undefined)).toHaveLength(3);
		// The mark is shown on the row, and the filter does not read it.
		const row = new FilterPicker(
			marked,
			plain,
			() => {},
			() => {},
		)
			.render(120)
			.find((l) => l.includes("exec-1"));
		expect(row).toContain(EXECUTOR_OWN_MODEL);
		expect(rankPickerItems(marked.items, "inactive")).toEqual([]);
	});

	it("a saved key that cannot be used gets its own row, second, saying why; the picker opens on it", () => {
		const models = [model("adv-r", { name: "Advisor Reasoner" })];
		const spec = modelPickerSpec(models, undefined, undefined, {
			label: "mock/adv-2",
			selection: { reason: "unknown-model", modelKey: "mock/adv-2" },
		});
		const lines = new FilterPicker(
			spec,
			plain,
			() => {},
			() => {},
		).render(120);
		expect(lines.slice(2, -1)).toEqual([
			expect.stringMatching(/^ {2}No advisor\s+turn the advisor off$/),
			expect.stringMatching(/^→ mock\/adv-2\s+saved, inactive: not in Pi's model registry$/),
			"  Advisor Reasoner (prov/adv-r)",
		]);
		// Its value is no model key: choosing it can never save anything.
		expect(spec.items[1]!.value).not.toContain("/");
		expect(spec.initialValue).toBe(spec.items[1]!.value);
		expect(rankPickerItems(spec.items, "adv-2").map((item) => item.label)).toEqual(["mock/adv-2"]);
		// Without one, the picker opens on the current model or `No advisor`, as before.
		expect(modelPickerSpec(models, undefined).initialValue).toBe("");
		expect(modelPickerSpec(models, models[0]).initialValue).toBe("prov/adv-r");
	});

	it("`no` and `advr` narrow to the obvious row; a shared prefix keeps every row it starts", () => {
		expect(labels("no")).toEqual(["No advisor"]);
		expect(labels("advr")).toEqual(["Advisor Reasoner (mock/adv-r)"]);
		expect(labels("adv")).toEqual(["Advisor Reasoner (mock/adv-r)", "Advisor Lite (mock/adv-lite)"]);
		expect(labels("lite")).toEqual(["Advisor Lite (mock/adv-lite)"]);
		expect(labels("mock")).toEqual([
			"Advisor Reasoner (mock/adv-r)",
			"Advisor Lite (mock/adv-lite)",
			"Mock Executor (mock/exec-1)",
		]);
		expect(labels("cl op")).toEqual(["Claude Opus 4.5 (anthropic/claude-opus-4-5)"]);
		expect(labels("mock/exec")).toEqual(["Mock Executor (mock/exec-1)"]);
		expect(labels("zz")).toEqual([]);
		expect(labels("  ")).toEqual(spec.items.map((item) => item.label));
	});

	it("in the picker, `advr` then enter picks that model", () => {
		let chosen: string | undefined;
		const picker = new FilterPicker(
			spec,
			plain,
			() => {},
			(v) => {
				chosen = v;
			},
		);
		for (const key of "advr") picker.handleInput(key);
		expect(picker.visibleValues()).toEqual(["mock/adv-r"]);
		expect(picker.render(100).slice(2, -1)).toEqual(["→ Advisor Reasoner (mock/adv-r)"]);
		picker.handleInput(KEYS.enter);
		expect(chosen).toBe("mock/adv-r");
	});

	const word = fc.stringMatching(/^[a-z0-9]{1,6}$/);
	const items = fc.uniqueArray(
		fc.record({ value: word, label: fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(" ")) }),
		{ selector: (item) => item.value, maxLength: 8 },
	);
	const query = fc.array(fc.stringMatching(/^[a-z0-9]{1,3}$/), { minLength: 1, maxLength: 2 }).map((t) => t.join(" "));

	it("every listed row matches every token; the best match is listed first; nothing is invented", () => {
		fc.assert(
			fc.property(items, query, (rows: PickerItem[], q) => {
				const tokens = q.split(" ");
				const score = (item: PickerItem) => tokens.reduce((sum, t) => sum + fuzzyMatch(t, item.label).score, 0);
				const matching = rows.filter((item) => tokens.every((t) => fuzzyMatch(t, item.label).matches));
				const listed = rankPickerItems(rows, q);
				for (const item of listed) expect(matching).toContain(item);
				if (matching.length === 0) {
					expect(listed).toEqual([]);
					return;
				}
				const best = Math.min(...matching.map(score));
				expect(score(listed[0]!)).toBe(best);
				// Everything within the margin of the best is kept, everything beyond it is not.
				expect(listed.length).toBe(matching.filter((item) => score(item) <= best + PICKER_SCORE_MARGIN).length);
			}),
		);
	});
});
