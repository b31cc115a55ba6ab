/**
 * `/advisor watch [on|off]` without a host (docs/configuration.md#the-watch): it saves `watch.enabled`
 * first and only then applies it, says what it did (a notice with a UI, stderr without), re-registers
 * the advisor tool for the new guidance, completes its arguments by the state it would change, and a
 * failed save changes nothing.
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAdvisorRuntime, currentConfig } from "../../../../src/adapter/extension/host/activation-state.ts";
import { createAdvisorCommand } from "../../../../src/adapter/extension/host/advisor-command.ts";
import { watchSaveFailed, watchTurned } from "../../../../src/adapter/extension/pi/notices.ts";
import { testTempDir } from "../../../support/temp.ts";

function host(hasUI: boolean, file?: string) {
	const config = testTempDir("adv-watch-");
	const path = join(config, "pi-advisor-ledger", "advisor.json");
	if (file !== undefined) {
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, file);
	}
	const runtime = createAdvisorRuntime({ env: { XDG_CONFIG_HOME: config } });
	const notes: [string, string | undefined][] = [];
	const stderr: string[] = [];
	const printed: string[] = [];
	let refreshed = 0;
	let invoked = 0;
	const command = createAdvisorCommand({
		pi: { getActiveTools: () => [], setActiveTools: () => {}, getThinkingLevel: () => "off", getAllTools: () => [] },
		runtime,
		onInvoke: () => {
			invoked++;
		},
		refreshTool: () => {
			refreshed++;
		},
		stderr: (line) => stderr.push(line),
		print: (text) => printed.push(text),
	});
	const ctx = { hasUI, ui: { notify: (m: string, t?: string) => notes.push([m, t]) } };
	const run = (args: string) => command.handler(args, ctx as never);
	const saved = () => JSON.parse(readFileSync(path, "utf8"));
	return {
		command,
		runtime,
		run,
		path,
		saved,
		notes,
		stderr,
		printed,
		refreshed: () => refreshed,
		invoked: () => invoked,
	};
}

describe("/advisor watch", () => {
	it("toggles: saved first, applied, the tool re-registered, said on stderr without a UI", async () => {
		const h = host(false, '{"modelKey": "a/b", "watch": {"failureStreak": 4}}\n');
		await h.run("watch");
		expect(h.saved()).toEqual({ modelKey: "a/b", watch: { failureStreak: 4, enabled: true } });
		expect(currentConfig(h.runtime).watch).toMatchObject({ enabled: true, failureStreak: 4 });
		expect(h.refreshed()).toBe(1);
		// No activation decided yet (no session): the watch waits for an active advisor.
		expect(h.printed).toEqual([`${watchTurned(true, false, h.path)}\n`]);
		expect(h.printed[0]).toContain("idle until an advisor is active");
		await h.run(" watch ");
		expect(h.saved().watch).toEqual({ failureStreak: 4, enabled: false });
		expect(currentConfig(h.runtime).watch.enabled).toBe(false);
		expect(h.printed[1]).toBe(`${watchTurned(false, false, h.path)}\n`);
		expect(h.stderr).toEqual([]);
		// Choosing the advisor ends warming; turning the watch on or off does not.
		expect(h.invoked()).toBe(0);
	});

	it("`on` and `off` set, whatever the state; with a UI it is a notice", async () => {
		const h = host(true);
		h.runtime.activation = { active: true } as never;
		await h.run("watch on");
		await h.run("watch on");
		expect(h.saved()).toEqual({ watch: { enabled: true } });
		expect(h.notes).toEqual([
			[watchTurned(true, true, h.path), "info"],
			[watchTurned(true, true, h.path), "info"],
		]);
		expect(h.notes[0]![0]).not.toContain("idle");
		await h.run("watch off");
		expect(h.saved()).toEqual({ watch: { enabled: false } });
		expect(h.printed).toEqual([]);
	});

	it("a failed save changes nothing: the file byte for byte, the watch as it was, the tool untouched", async () => {
		const h = host(false, '{"watch": "on"}');
		const before = currentConfig(h.runtime).watch;
		await h.run("watch on");
		expect(readFileSync(h.path, "utf8")).toBe('{"watch": "on"}');
		expect(currentConfig(h.runtime).watch).toEqual(before);
		expect(h.refreshed()).toBe(0);
		expect(h.stderr).toEqual([watchSaveFailed(`${h.path}: watch is not an object`)]);
		expect(h.printed).toEqual([]);
	});

	it("anything else after `watch` is answered with the usage", async () => {
		const h = host(false);
		await h.run("watch maybe");
		expect(h.stderr).toHaveLength(1);
		expect(h.stderr[0]).toContain('unknown argument "watch maybe"');
		expect(h.stderr[0]).toContain("/advisor watch [on|off]");
	});

	it("completes `watch` saying what it would do, then `on` and `off`", async () => {
		const h = host(false);
		const values = (prefix: string) => h.command.getArgumentCompletions(prefix)?.map((item) => item.value) ?? null;
		expect(values("w")).toEqual(["watch"]);
		expect(h.command.getArgumentCompletions("watch")?.[0]?.description).toMatch(/^turn the watch on/);
		expect(values("watch ")).toEqual(["watch on", "watch off"]);
		expect(values("watch of")).toEqual(["watch off"]);
		expect(values("watch x")).toBeNull();
		await h.run("watch on");
		expect(h.command.getArgumentCompletions("watch")?.[0]?.description).toBe("turn the watch off (it is on)");
	});
});
