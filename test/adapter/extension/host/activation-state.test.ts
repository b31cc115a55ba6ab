/**
 * reconcile with a scripted host: the tool set follows the decision, and advisor.json is never
 * written: a saved model that cannot be used is warned about once and left in the file.
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	createAdvisorRuntime,
	reconcile,
	resetRestoredAnnouncement,
	setToolActive,
} from "../../../../src/adapter/extension/host/activation-state.ts";
import { advisorSelectionUnusable } from "../../../../src/adapter/extension/pi/notices.ts";
import { testTempDir } from "../../../support/temp.ts";

function fixture(config: Record<string, unknown>, options: { credentials?: boolean; text?: string } = {}) {
	const home = testTempDir("adv-state-");
	const file = join(home, "pi-advisor-ledger", "advisor.json");
	mkdirSync(join(home, "pi-advisor-ledger"));
	writeFileSync(file, options.text ?? JSON.stringify(config));
	const runtime = createAdvisorRuntime({ env: { XDG_CONFIG_HOME: home } });
	let active = ["read", "advisor"];
	const sets: string[][] = [];
	const notes: [string, string | undefined][] = [];
	const pi = {
		getActiveTools: () => [...active],
		setActiveTools: (names: string[]) => {
			sets.push(names);
			active = names;
		},
		getThinkingLevel: () => "off" as const,
	};
	const registry = [{ provider: "adv", id: "big", name: "Big" }];
	const auth = { has: options.credentials ?? true };
	const ctx = {
		hasUI: true,
		model: { provider: "exec", id: "small" },
		modelRegistry: {
			find: (provider: string, id: string) => registry.find((m) => m.provider === provider && m.id === id),
			hasConfiguredAuth: () => auth.has,
		},
		ui: { notify: (m: string, t?: string) => notes.push([m, t]) },
	};
	return { run: () => reconcile(pi, ctx as never, runtime), file, sets, notes, active: () => active, runtime, auth };
}

describe("a saved model that cannot be used", () => {
	it("a key not in the registry: the file is left byte for byte, the tool stripped, the user warned", () => {
		const text = '{"effort":"high",  "modelKey": "adv/gone",\n"ledger":{"tailToolCalls":4}}';
		const f = fixture({}, { text });
		const decision = f.run();
		expect(decision).toMatchObject({ active: false, reason: "unknown-model", modelKey: "adv/gone" });
		expect(readFileSync(f.file, "utf8")).toBe(text);
		expect(f.active()).toEqual(["read"]);
		expect(f.notes).toEqual([
			[advisorSelectionUnusable({ reason: "unknown-model", modelKey: "adv/gone" }, f.file), "warning"],
		]);
		// The selection stays what the file says: /advisor shows it, a later session reads it again.
		expect(f.runtime.loaded.config.modelKey).toBe("adv/gone");
		expect(f.runtime.loaded.config.effort).toBe("high");
	});

	it("a model without credentials: the same, naming the provider", () => {
		const f = fixture({ modelKey: "adv/big" }, { credentials: false });
		const before = readFileSync(f.file, "utf8");
		expect(f.run()).toMatchObject({ active: false, reason: "no-credentials", provider: "adv" });
		expect(readFileSync(f.file, "utf8")).toBe(before);
		expect(f.notes).toEqual([
			[
				advisorSelectionUnusable({ reason: "no-credentials", modelKey: "adv/big", provider: "adv" }, f.file),
				"warning",
			],
		]);
	});

	it("is warned about once, not on every reconcile; again once cleared (a session start)", () => {
		const f = fixture({ modelKey: "adv/gone" });
		f.run();
		f.run();
		f.run();
		expect(f.notes).toHaveLength(1);
		f.runtime.unusableNotice = undefined;
		f.run();
		expect(f.notes).toHaveLength(2);
	});

	it("applies once the credentials appear in the session (a login), and says so; a logout warns again", () => {
		resetRestoredAnnouncement();
		const f = fixture({ modelKey: "adv/big" }, { credentials: false });
		f.run();
		f.auth.has = true;
		expect(f.run()).toMatchObject({ active: true });
		expect(f.active()).toEqual(["read", "advisor"]);
		expect(f.notes.slice(1)).toEqual([["Advisor restored: Big (adv/big)", "info"]]);
		f.run();
		expect(f.notes).toHaveLength(2);
		f.auth.has = false;
		f.run();
		expect(f.active()).toEqual(["read"]);
		expect(f.notes).toHaveLength(3);
		expect(f.notes[2]![1]).toBe("warning");
	});

	it("a warn callback takes the warning instead of a notice (session_start shows it with the config warnings)", () => {
		const f = fixture({ modelKey: "adv/gone" });
		const warned: string[] = [];
		reconcile(
			{ getActiveTools: () => [], setActiveTools: () => {}, getThinkingLevel: () => "off" },
			{
				hasUI: true,
				model: undefined,
				modelRegistry: { find: () => undefined, hasConfiguredAuth: () => true },
				ui: { notify: () => f.notes.push(["unexpected", undefined]) },
			} as never,
			f.runtime,
			{ warn: (m) => warned.push(m) },
		);
		expect(warned).toHaveLength(1);
		expect(f.notes).toEqual([]);
	});
});

describe("the tool set", () => {
	it("is only written when it changes", () => {
		const f = fixture({});
		f.run();
		f.run();
		expect(f.sets).toEqual([["read"]]);
	});

	it("setToolActive adds and removes only advisor", () => {
		let names = ["read", "bash"];
		const pi = { getActiveTools: () => names, setActiveTools: (n: string[]) => (names = n) };
		setToolActive(pi, true);
		expect(names).toEqual(["read", "bash", "advisor"]);
		setToolActive(pi, false);
		expect(names).toEqual(["read", "bash"]);
	});
});
