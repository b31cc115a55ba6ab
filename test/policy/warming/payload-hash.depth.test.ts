/**
 * The payload hash on JSON nested deeper than any recursive walk can go: it walks iteratively, so a
 * payload 200,000 levels deep hashes (it overflowed the stack before), and on shallow payloads it is
 * the canonical JSON. The depth clipping where entries are read is test/events/depth.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { payloadHash } from "../../../src/policy/warming/payload-hash.ts";
import { RUNS } from "../../support/session-gen.ts";

function deepObject(depth: number): unknown {
	let value: unknown = 1;
	for (let i = 0; i < depth; i++) value = { a: value };
	return value;
}

describe("the payload hash walks without recursion", () => {
	it("hashes a payload nested 200,000 levels deep, deterministically, cycles marked", () => {
		const payload = {
			messages: [{ role: "assistant", content: [{ type: "toolCall", arguments: deepObject(200_000) }] }],
		};
		const hash = payloadHash(payload, "anthropic-messages");
		expect(hash).toBe(payloadHash(structuredCloneDeep(200_000), "anthropic-messages"));
		const cyclic: Record<string, unknown> = { a: 1 };
		cyclic.self = cyclic;
		expect(() => payloadHash(cyclic, "x")).not.toThrow();
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
