/**
 * The payload hash on JSON nested deeper than any recursive walk can go: it walks iteratively, so a
 * payload 200,000 levels deep hashes (it overflowed the stack before), on shallow payloads it is the
 * canonical JSON, and a cycle is written as the string "[cycle]" where it closes. The depth clipping
 * where entries are read is test/events/depth.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalPayload, payloadHash } from "../../../src/policy/warming/payload-hash.ts";
import { RUNS } from "../../support/session-gen.ts";

function deepObject(depth: number): unknown {
	let value: unknown = 1;
	for (let i = 0; i < depth; i++) value = { a: value };
	return value;
}

describe("the payload hash walks without recursion", () => {
	it("hashes a payload nested 200,000 levels deep, deterministically", () => {
		const payload = {
			messages: [{ role: "assistant", content: [{ type: "toolCall", arguments: deepObject(200_000) }] }],
		};
		const hash = payloadHash(payload, "anthropic-messages");
		expect(hash).toBe(payloadHash(structuredCloneDeep(200_000), "anthropic-messages"));
	});

	it('marks a cycle "[cycle]" where it closes, and writes an object shared without a cycle in full', () => {
		const cyclic: Record<string, unknown> = { a: 1 };
		cyclic.self = cyclic;
		expect(canonicalPayload(cyclic, "x")).toBe('{"a":1,"self":"[cycle]"}');
		expect(payloadHash(cyclic, "x")).toBe(payloadHash({ a: 1, self: "[cycle]" }, "x"));

		const list: unknown[] = [1];
		const around = { list };
		list.push({ back: around });
		expect(canonicalPayload(around, "x")).toBe('{"list":[1,{"back":"[cycle]"}]}');

		// Only an object on the path being written closes a cycle: siblings sharing one are not.
		const shared = { k: [2] };
		expect(canonicalPayload({ x: shared, y: shared }, "x")).toBe('{"x":{"k":[2]},"y":{"k":[2]}}');
	});

	it("equals the canonical JSON of a shallow payload: keys sorted, undefined dropped, toJSON honoured", () => {
		fc.assert(
			fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
				const sorted = (v: unknown): unknown =>
					Array.isArray(v)
						? v.map(sorted)
						: typeof v === "object" && v !== null
							? Object.fromEntries(
									Object.keys(v)
										.sort()
										.map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
								)
							: v;
				const wrapped = { toJSON: () => value };
				expect(payloadHash({ body: wrapped, skip: undefined }, "x")).toBe(
					payloadHash({ body: sorted(value) }, "x"),
				);
			}),
			{ numRuns: RUNS },
		);
	});
});

/** The same deep payload built again (a different object graph with equal content). */
function structuredCloneDeep(depth: number): unknown {
	return { messages: [{ content: [{ arguments: deepObject(depth), type: "toolCall" }], role: "assistant" }] };
}
