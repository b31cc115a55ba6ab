/**
 * advisor.json's warnings are shown whenever the file is re-read (session start, /new, a session
 * switch, /advisor's save), once per read; without a UI they go to stderr. The real TUI proof (Pi
 * 0.73 clears its chat after /new) is in extension-tui.e2e.test.ts; here: the rule, then the real SDK host.
 */

import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { resetRestoredAnnouncement } from "../../../../src/adapter/extension/host/activation-state.ts";
import { showConfigWarnings } from "../../../../src/adapter/extension/host/lifecycle.ts";
import { say, terminalLine } from "../../../../src/adapter/extension/pi/say.ts";
import {
	ADVISOR_MODEL,
	ADVISOR_NAME,
	ADVISOR_PROVIDER,
	type Host,
	KEYS,
	startHost,
	waitFor,
} from "../../../support/pi-host.ts";

function uiCtx(hasUI: boolean) {
	const shown: [string, string | undefined][] = [];
	return { shown, ctx: { hasUI, ui: { notify: (m: string, t?: string) => shown.push([m, t]) } } as never };
}

describe("showConfigWarnings", () => {
	it("at startup and on /reload: at once", () => {
		for (const reason of ["startup", "reload"]) {
			const { shown, ctx } = uiCtx(true);
			showConfigWarnings(ctx, ["w1", "w2"], reason, () => {
				throw new Error("not deferred");
			});
			expect(shown).toEqual([
				["w1", "warning"],
				["w2", "warning"],
			]);
		}
	});

	it("after /new, a switch or a fork: once the host is done with the event (it rebuilds its chat)", () => {
		for (const reason of ["new", "resume", "fork"]) {
			const { shown, ctx } = uiCtx(true);
			const later: (() => void)[] = [];
			showConfigWarnings(ctx, ["w"], reason, (work) => later.push(work));
			expect(shown).toEqual([]);
			expect(later).toHaveLength(1);
			later[0]!();
			expect(shown).toEqual([["w", "warning"]]);
		}
	});

	it("a context gone stale before the deferred notice is no error", () => {
		const ctx = {
			hasUI: true,
			ui: {
				notify: () => {
					throw new Error("stale extension context");
				},
			},
		} as never;
		const later: (() => void)[] = [];
		showConfigWarnings(ctx, ["w"], "new", (work) => later.push(work));
		expect(() => later[0]!()).not.toThrow();
	});

	it("nothing to say: nothing deferred", () => {
		const { ctx } = uiCtx(true);
		showConfigWarnings(ctx, [], "new", () => {
			throw new Error("not deferred");
		});
	});
});

describe("say", () => {
	it("with a UI: Pi's notification, whatever the level", () => {
		const { shown, ctx } = uiCtx(true);
		say(ctx, "i", "info");
		say(ctx, "w", "warning");
		expect(shown).toEqual([
			["i", "info"],
			["w", "warning"],
		]);
	});

	it("without one: warnings and errors on stderr as one escaped line, information left out", () => {
		const { shown, ctx } = uiCtx(false);
		const lines: string[] = [];
		say(ctx, "Advisor restored: x", "info", (l) => lines.push(l));
		say(ctx, "bad\u001b[2Jpath\nnext", "warning", (l) => lines.push(l));
		say(ctx, "broken", "error", (l) => lines.push(l));
		expect(lines).toEqual(["bad\\x1b[2Jpath\\nnext", "broken"]);
		expect(shown).toEqual([]);
	});

	it("terminalLine leaves printable text alone and writes a tab as \\t, like every other surface", () => {
		expect(terminalLine("a b — é ✓")).toBe("a b — é ✓");
		expect(terminalLine("a\tb")).toBe("a\\tb");
		expect(terminalLine("\u0000\u007f\u009b")).toBe("\\x00\\x7f\\x9b");
	});
});

describe("on the real host", () => {
	let host: Host | undefined;
	afterEach(async () => {
		await host?.dispose();
		host = undefined;
	});

	const warnings = (h: Host) => h.notifications.filter((n) => n.message.includes("ledger.tailToolCalls"));

	it("one warning per read: at start, after /new, after a switch back, after /advisor saves", async () => {
		resetRestoredAnnouncement();
		host = await startHost({
			executor: [fauxAssistantMessage("ok")],
			advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`, ledger: { tailToolCalls: -1 } },
			pickerKeys: [[KEYS.enter], [KEYS.enter]],
		});
		const h = host;
		expect(warnings(h)).toHaveLength(1);
		await h.runtime.session.prompt("hello");
		const first = h.runtime.session.sessionFile!;

		await h.runtime.newSession();
		await waitFor(() => warnings(h).length === 2, "the warning after /new");

		await h.runtime.switchSession(first);
		await waitFor(() => warnings(h).length === 3, "the warning after the switch");

		await h.runtime.session.prompt("/advisor");
		expect(h.notifications.at(-2)).toEqual({ message: warnings(h)[0]!.message, type: "warning" });
		expect(h.notifications.at(-1)).toEqual({
			message: `Advisor set to ${ADVISOR_NAME} (${ADVISOR_PROVIDER}/${ADVISOR_MODEL})`,
			type: "info",
		});
		// Nothing arrives late: each read was shown exactly once.
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(warnings(h)).toHaveLength(4);
	});
});
