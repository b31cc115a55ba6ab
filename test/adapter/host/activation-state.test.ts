/**
 * reconcile with a scripted host: the tool set follows the decision, and a stale selection is
 * cleared from the file only when the registry itself loaded fine.
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAdvisorRuntime, reconcile, setToolActive } from "../../../src/adapter/host/activation-state.ts";
import { testTempDir } from "../../support/temp.ts";

function fixture(config: Record<string, unknown>, registryError?: string) {
	const home = testTempDir("adv-state-");
	const file = join(home, "pi-advisor-ledger", "advisor.json");
	mkdirSync(join(home, "pi-advisor-ledger"));
	writeFileSync(file, JSON.stringify(config));
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
	const ctx = {
		hasUI: true,
		model: { provider: "exec", id: "small" },
		modelRegistry: { find: () => undefined, getError: () => registryError },
		ui: { notify: (m: string, t?: string) => notes.push([m, t]) },
	};
	return { run: () => reconcile(pi, ctx as never, runtime), file, sets, notes, active: () => active, runtime };
}

describe("a saved model that is no longer in the registry", () => {
	it("is cleared from the file (other keys kept), the tool stripped, the user warned", () => {
		const f = fixture({ modelKey: "adv/gone", effort: "high", ledger: { tailToolCalls: 4 } });
		const decision = f.run();
		expect(decision).toMatchObject({ active: false, reason: "stale-model" });
		expect(JSON.parse(readFileSync(f.file, "utf8"))).toEqual({ ledger: { tailToolCalls: 4 } });
		expect(f.active()).toEqual(["read"]);
		expect(f.notes).toEqual([["Advisor model adv/gone is no longer available — advisor turned off", "warning"]]);
		expect(f.runtime.loaded.config.modelKey).toBeUndefined();
	});

	it("is kept in the file when models.json failed to load (the model may only be missing for that reason)", () => {
		const f = fixture({ modelKey: "adv/custom" }, "models.json: Unexpected token");
		f.run();
		expect(JSON.parse(readFileSync(f.file, "utf8"))).toEqual({ modelKey: "adv/custom" });
		expect(f.active()).toEqual(["read"]);
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
