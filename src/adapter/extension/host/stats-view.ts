/**
 * `/advisor stats`: what the advisor has cost on this branch and in the whole session
 * (adapter/stats), from the live session's entries. In the TUI a panel (esc or enter closes it);
 * without a UI (`pi -p "/advisor stats"`) plain text on stderr — in print mode Pi keeps stdout for
 * the answer and sends whatever an extension writes there to stderr anyway, and JSON mode's event
 * stream stays intact; on a host without custom components (RPC), one notification. It never touches background work: cache
 * warming carries on.
 */

import type { Tool } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionCommandContext, Theme } from "@mariozechner/pi-coding-agent";
import { type Component, getKeybindings, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { entryRecords } from "../../../events/index.ts";
import { inventoryMessage } from "../baseline/messages.ts";
import { STATS_HINT } from "../pi/notices.ts";
import { terminalLine } from "../pi/say.ts";
import { priceOf } from "../stats/full-context.ts";
import { type SessionStats, sessionStats } from "../stats/session-stats.ts";
import { statsLines } from "../stats/stats-text.ts";

/** The stats of the session `ctx` is in: its branch, its entries, the executor's tools, the registry's prices. */
export function liveStats(
	pi: Pick<ExtensionAPI, "getAllTools">,
	ctx: Pick<ExtensionCommandContext, "sessionManager" | "modelRegistry">,
): SessionStats {
	const sm = ctx.sessionManager;
	return sessionStats({
		entries: entryRecords(sm.getEntries()),
		path: entryRecords(sm.getBranch()),
		inventory: inventoryMessage(pi.getAllTools() as unknown as Tool[]),
		price: priceOf((provider, id) => ctx.modelRegistry.find(provider, id)),
	});
}

export type StatsStyle = Pick<Theme, "fg" | "bold">;

/** The TUI panel: the stats lines, headings in bold, wrapped to the width; esc or enter closes it. */
export class StatsPanel implements Component {
	private readonly lines: readonly string[];
	private readonly style: StatsStyle;
	private readonly done: () => void;
	private closed = false;

	constructor(lines: readonly string[], style: StatsStyle, done: () => void) {
		this.lines = lines;
		this.style = style;
		this.done = done;
	}

	handleInput(data: string): void {
		const kb = getKeybindings();
		if (kb.matches(data, "tui.select.cancel") || kb.matches(data, "tui.select.confirm")) {
			if (this.closed) return;
			this.closed = true;
			this.done();
		}
	}

	invalidate(): void {}

	render(width: number): string[] {
		const out: string[] = [];
		for (const line of this.lines) {
			const content = line.trimStart();
			if (content === line) {
				out.push(truncateToWidth(this.style.bold(this.style.fg("accent", line)), width));
				continue;
			}
			// Wrapped rows keep the line's indent, and a little more after the first.
			const indent = line.slice(0, line.length - content.length);
			const rows = wrapTextWithAnsi(content, Math.max(10, width - indent.length - 2));
			out.push(...rows.map((row, k) => `${indent}${k === 0 ? "" : "  "}${row}`));
		}
		out.push(truncateToWidth(this.style.fg("dim", STATS_HINT), width));
		return out;
	}
}

export interface StatsDeps {
	pi: Pick<ExtensionAPI, "getAllTools">;
	/** Where a headless `/advisor stats` prints; default the process's stderr. */
	print?: (text: string) => void;
}

export async function showStats(deps: StatsDeps, ctx: ExtensionCommandContext): Promise<void> {
	const lines = statsLines(liveStats(deps.pi, ctx)).map(terminalLine);
	if (!ctx.hasUI) {
		(deps.print ?? ((text) => process.stderr.write(text)))(`${lines.join("\n")}\n`);
		return;
	}
	let shown = false;
	await ctx.ui.custom<void>((_tui, theme, _keybindings, done) => {
		shown = true;
		return new StatsPanel(lines, theme, () => done(undefined));
	});
	if (!shown) ctx.ui.notify(lines.join("\n"), "info");
}
