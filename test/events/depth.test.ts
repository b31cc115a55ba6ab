// JSON nested deeper than any recursive walk can go: clipped once where entries are read, with a
// visible marker, and every walk that could still meet such a value (the payload hash,
// test/policy/warming/payload-hash.depth.test.ts) is iterative. Each attack below overflowed the stack before (RangeError: Maximum call stack size
// exceeded), in the schema check, immer, JSON.stringify or the hash.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clipDepth, MAX_ENTRY_DEPTH, NESTING_CLIPPED_MARKER, nestingDepth } from "../../src/events/depth.ts";
import { eventsFromBranch, readSession } from "../../src/events/index.ts";
import { ledgerOf } from "../../src/reducers/index.ts";
import { createRenderMemo, DEFAULT_LEDGER_CONFIG, flatten, renderRequest } from "../../src/render/index.ts";
import { FC_RUNS, header } from "./helpers.ts";

/** `depth` levels of arrays around 1, built without recursion. */
function deepArray(depth: number): unknown {
	let value: unknown = 1;
	for (let i = 0; i < depth; i++) value = [value];
	return value;
}

function deepObject(depth: number): unknown {
	let value: unknown = 1;
	for (let i = 0; i < depth; i++) value = { a: value };
	return value;
}

const deepText = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

describe("clipDepth", () => {
	it("returns the very value when it is shallow enough, a clipped copy otherwise", () => {
		fc.assert(
			fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 1, max: 5 }), (value, max) => {
				const depth = nestingDepth(value);
				const { value: out, clipped } = clipDepth(value, max, "CLIP");
				expect(clipped).toBe(depth > max);
				if (!clipped) expect(out).toBe(value);
				else {
					expect(nestingDepth(out)).toBeLessThanOrEqual(max);
					expect(JSON.stringify(out)).toContain('"CLIP"');
					// The input is left as it was.
					expect(nestingDepth(value)).toBe(depth);
				}
				// Clipping at the value's own depth changes nothing.
				expect(clipDepth(value, Math.max(depth, 1), "CLIP").value).toBe(value);
			}),
			{ numRuns: FC_RUNS },
		);
	});

	it("keeps keys, their order and everything above the cap; a __proto__ key stays a plain key", () => {
		const value = JSON.parse(`{"z":1,"__proto__":{"polluted":true},"a":${deepText(10)},"m":[{"k":"v"}]}`) as object;
		const { value: out, clipped } = clipDepth(value, 4, "CLIP");
		expect(clipped).toBe(true);
		expect(JSON.stringify(out)).toBe('{"z":1,"__proto__":{"polluted":true},"a":[[["CLIP"]]],"m":[{"k":"v"}]}');
		expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("measures and clips 1,000,000 levels of arrays and of objects without recursion", () => {
		for (const value of [deepArray(1_000_000), deepObject(1_000_000)]) {
			expect(nestingDepth(value)).toBe(1_000_000);
			const { value: out } = clipDepth(value);
			expect(nestingDepth(out)).toBe(MAX_ENTRY_DEPTH);
			expect(JSON.stringify(out)).toContain(NESTING_CLIPPED_MARKER);
		}
	});
});

/** A session whose one tool call nests `depth` levels in its arguments and its result in its details. */
function deepSession(depth: number): string {
	const lines = [
		JSON.stringify(header()),
		JSON.stringify({
			type: "message",
			id: "u1",
			parentId: null,
			timestamp: "2026-01-01T00:00:00.000Z",
			message: { role: "user", content: "go", timestamp: 1 },
		}),
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"deep":${deepText(depth)}}}],"stopReason":"toolUse","timestamp":2}}`,
		`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}],"details":{"deep":${deepText(depth)}},"isError":false,"timestamp":3}}`,
		JSON.stringify({
			type: "message",
			id: "u2",
			parentId: "r1",
			timestamp: "2026-01-01T00:00:03.000Z",
			message: { role: "user", content: "after", timestamp: 4 },
		}),
	];
	return `${lines.join("\n")}\n`;
}

describe("a session with deeply nested arguments and details", () => {
	it.each([2_500, 100_000])(
		"%i levels: read, folded and rendered, clipped with the marker, nothing skipped",
		(depth) => {
			const read = readSession(deepSession(depth));
			expect(read.events.map((e) => e.kind)).toEqual(["user", "assistant", "toolResult", "user"]);
			expect(read.diagnostics.map((d) => [d.reason, d.line])).toEqual([
				["deep-nesting", 3],
				["deep-nesting", 4],
			]);
			const request = renderRequest(
				ledgerOf(read.events),
				{ config: DEFAULT_LEDGER_CONFIG, catalogue: [], tools: [], toolsMode: "repo", mode: "consult" },
				createRenderMemo(),
			);
			const text = flatten(request);
			expect(text).toContain(NESTING_CLIPPED_MARKER.replace(/"/g, '\\"'));
			expect(text).toContain("after");
			// With the call still running (no result yet): its arguments are in the verbatim tail.
			const running = renderRequest(
				ledgerOf(read.events.slice(0, 2)),
				{ config: DEFAULT_LEDGER_CONFIG, catalogue: [], tools: [], toolsMode: "repo", mode: "consult" },
				createRenderMemo(),
			);
			expect(flatten(running)).toContain(NESTING_CLIPPED_MARKER.replace(/"/g, '\\"'));
		},
	);

	it("the live path (Pi's in-memory entries) clips and reports the same way", () => {
		// Pi hands over objects, not text: the deep value is built in memory, as JSON.parse would.
		type Live = { message: { content: { arguments?: unknown }[] } };
		const live = deepSession(1)
			.trimEnd()
			.split("\n")
			.slice(1)
			.map((line) => JSON.parse(line) as Live);
		live[1]!.message.content[0]!.arguments = { deep: deepArray(100_000) };
		const { events, diagnostics } = eventsFromBranch(live);
		expect(events.map((e) => e.kind)).toEqual(["user", "assistant", "toolResult", "user"]);
		expect(diagnostics.map((d) => d.reason)).toContain("deep-nesting");
		const call = events[1]!.kind === "assistant" ? events[1]!.calls[0]! : undefined;
		expect(nestingDepth(call!.arguments)).toBeLessThan(MAX_ENTRY_DEPTH);
		expect(JSON.stringify(call!.arguments)).toContain(NESTING_CLIPPED_MARKER);
	});
});
