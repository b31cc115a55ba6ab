/**
 * What `render` shows of the extension's cache marks (docs/request-format.md §7): the stable end,
 * and the bridge to the previous consultation's stable end when it lies more than 20 blocks back,
 * on the bundled taskq session's real advisor calls.
 */

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Style } from "../../../src/adapter/lab/report/text-report.ts";
import { renderReadable } from "../../../src/adapter/lab/request/readable.ts";
import { renderAt, renderJson } from "../../../src/adapter/lab/request/render-at.ts";
import { buildContext } from "../../../src/render/index.ts";

const TASKQ = readFileSync(new URL("../../../samples/long/taskq.jsonl", import.meta.url), "utf8");
const plain: Style = { bold: (t) => t, dim: (t) => t, red: (t) => t, green: (t) => t, yellow: (t) => t };

/** The entry ids of the session's advisor calls, in order. */
const advisorCalls = TASKQ.trim()
	.split("\n")
	.map((line) => JSON.parse(line))
	.filter(
		(e) =>
			e.type === "message" &&
			e.message.role === "assistant" &&
			e.message.content.some((p: { type: string; name?: string }) => p.type === "toolCall" && p.name === "advisor"),
	)
	.map((e) => e.id as string);

const partText = (rendered: ReturnType<typeof renderAt>, messageIndex: number, partCount: number) =>
	(buildContext(rendered.request).messages[messageIndex]!.content as { text: string }[])[partCount - 1]!.text;

describe("render shows the cache marks", () => {
	it("the first consultation: the stable end only", () => {
		const first = renderAt("taskq", TASKQ, undefined, advisorCalls[0]);
		expect(renderJson(first).marks).toEqual({
			stable: { messageIndex: first.request.stable.messageIndex, partCount: first.request.stable.partCount },
			bridge: null,
		});
		expect(renderReadable(first, plain)).toContain(
			"Cache marks of the extension (Anthropic-style routes): the stable end.",
		);
	});

	it("the second: a bridge at the part where the first one's stable portion ended, more than 20 parts back", () => {
		const first = renderAt("taskq", TASKQ, undefined, advisorCalls[0]);
		const second = renderAt("taskq", TASKQ, undefined, advisorCalls[1]);
		const { bridge, stable } = renderJson(second).marks;
		expect(bridge).toEqual({
			messageIndex: first.request.stable.messageIndex,
			partCount: first.request.stable.partCount,
			previousAtEntryId: advisorCalls[0],
		});
		expect(partText(second, bridge!.messageIndex, bridge!.partCount)).toBe(
			partText(first, first.request.stable.messageIndex, first.request.stable.partCount),
		);
		expect(second.request.stable.unitCount - first.request.stable.unitCount).toBeGreaterThan(20);
		expect(stable).toEqual({
			messageIndex: second.request.stable.messageIndex,
			partCount: second.request.stable.partCount,
		});
		const text = renderReadable(second, plain);
		expect(text).toContain(
			`a bridge at part ${bridge!.partCount} of message ${bridge!.messageIndex + 1}, where the consultation after entry ${advisorCalls[0]} ended its stable portion (more than 20 blocks back).`,
		);
		// The mark line follows that part's text.
		const lines = text.split("\n");
		const at = lines.indexOf("▲ cache mark (bridge): the previous consultation's cached prefix ends here");
		expect(at).toBeGreaterThan(0);
		const header = lines.lastIndexOf(`── part ${bridge!.partCount} · text · stable ──`, at);
		expect(header).toBeGreaterThan(0);
		expect(lines.slice(header + 1, at).join("\n")).toBe(partText(second, bridge!.messageIndex, bridge!.partCount));
	});
});
