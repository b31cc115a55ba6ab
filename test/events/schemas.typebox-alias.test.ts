/**
 * Inside Pi, `@sinclair/typebox` and `@sinclair/typebox/value` resolve to the bundled
 * typebox 1.x (Pi bundles typebox 1.x; docs/decisions.md). The schemas must judge entries the same way there.
 */

import { Type } from "@sinclair/typebox";
import { describe, expect, it, vi } from "vitest";
import { assistant, e, header, jsonl, msg, user } from "./helpers.ts";

vi.mock("@sinclair/typebox", async () => await import("typebox"));
vi.mock("@sinclair/typebox/value", async () => await import("typebox/value"));

const { readSession } = await import("../../src/events/index.ts");
const { parseRequestRecord, parseTrimAnchorRecord } = await import("../../src/events/records.ts");

describe("the events layer works under Pi's typebox 1.x alias", () => {
	it("the alias is in effect (1.x schemas carry no TypeBox.Kind symbol)", () => {
		expect(Symbol.for("TypeBox.Kind") in Type.String()).toBe(false);
	});

	it("valid entries are known, bad ones are reported with their path, extras are counted", () => {
		const read = readSession(
			jsonl([
				header(),
				msg("a", null, { ...user([{ type: "text", text: "x" }]), extra: 1 }),
				msg("b", "a", assistant([{ type: "toolCall", id: "c", name: "read", arguments: "s" }])),
				msg("c", "b", user(42)),
				e("custom_message", "d", "c", { customType: "t", content: "x", display: true }),
			]),
		);
		expect(read.events.map((x) => x.kind)).toEqual(["user", "assistant", "other", "customMessage"]);
		expect(read.diagnostics.map((d) => [d.reason, d.line])).toEqual([["schema-mismatch", 4]]);
		expect(read.diagnostics[0]!.message).toMatch(/\/message\/content/);
		expect(read.stats.unknownFields).toEqual({ "message/user.extra": 1 });
		expect(read.events[1]).toMatchObject({ calls: [{ arguments: { value: "s" } }] });
	});

	it("the extension's records are read with the same leniency", () => {
		expect(
			parseRequestRecord({ hash: "h", timestamp: 1, messageCount: -1, stableUnits: "x", toolsHash: "t" }),
		).toEqual({
			hash: "h",
			messageCount: 0,
			estimatedTokens: 0,
			timestamp: 1,
			toolsHash: "t",
		});
		expect(parseTrimAnchorRecord({ anchorEntryId: 3, tailCaps: 10 })).toBeUndefined();
		expect(parseTrimAnchorRecord({ tailCaps: 10.5 })).toEqual({ tailCaps: 10, summaryBoundaryId: null });
	});
});
