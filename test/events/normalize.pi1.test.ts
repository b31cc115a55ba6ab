/**
 * The entries Pi 1.x writes within version 3 that Pi 0.73 did not: `context_edit` and `usage`
 * (shapes from Pi 1.6's session-manager: appendContextEdit, appendUsage). Both become events; a
 * replacement is redacted like the content it replaces.
 */

import { describe, expect, it } from "vitest";
import { readSession } from "../../src/events/index.ts";
import { e, header, jsonl, msg, user } from "./helpers.ts";
import { PLANTS } from "./redact/credentials.ts";

const token = PLANTS["github-classic"]!(41).text;
const USAGE = {
	input: 12000,
	output: 1,
	cacheRead: 0,
	cacheWrite: 12000,
	totalTokens: 12001,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0.045, total: 0.045 },
};

const read = (...entries: unknown[]) => readSession(jsonl([header(), msg("u1", null, user("hi")), ...entries]));

describe("usage", () => {
	it("Pi's cache-warming spend is an event of its own, with no diagnostic", () => {
		const r = read(
			e("usage", "w1", "u1", { kind: "cache_warm", provider: "anthropic", model: "claude-x", usage: USAGE }),
		);
		expect(r.diagnostics).toEqual([]);
		expect(r.events.at(-1)).toEqual({
			id: "w1",
			parentId: "u1",
			kind: "usage",
			usageKind: "cache_warm",
			provider: "anthropic",
			model: "claude-x",
			usage: USAGE,
		});
	});

	it("with a note, and with a usage the ledger cannot read: still the entry, never a lost branch", () => {
		const r = read(
			e("usage", "w1", "u1", {
				kind: "cache_warm",
				provider: "p",
				model: "m",
				usage: "?",
				note: "extension override",
			}),
			msg("u2", "w1", user("after")),
		);
		expect(r.diagnostics).toEqual([]);
		expect(r.events.map((x) => x.kind)).toEqual(["user", "usage", "user"]);
	});
});

describe("context_edit", () => {
	it("a string replacement, parts of every kind, and an omission", () => {
		const r = read(
			e("context_edit", "e1", "u1", { targetId: "u1", replacement: { content: `pasted ${token}` } }),
			e("context_edit", "e2", "e1", {
				targetId: "a1",
				replacement: {
					content: [
						{ type: "thinking", thinking: `think ${token}` },
						{ type: "text", text: "prose" },
						{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
						{ type: "toolCall", id: "c1", name: "bash", arguments: { command: `echo ${token}` } },
						{ type: "thinking", thinking: "hidden", redacted: true },
					],
				},
			}),
			e("context_edit", "e3", "e2", { targetId: "r1", replacement: null }),
		);
		expect(r.diagnostics).toEqual([]);
		const [, e1, e2, e3] = r.events;
		expect(e1).toMatchObject({
			kind: "contextEdit",
			targetId: "u1",
			replacement: { parts: [{ type: "text", text: "pasted [redacted: github-token]" }], thinking: "", calls: [] },
		});
		expect(e2).toMatchObject({
			targetId: "a1",
			replacement: {
				parts: [
					{ type: "text", text: "prose" },
					{ type: "image", mimeType: "image/png" },
				],
				thinking: "think [redacted: github-token]",
				calls: [{ id: "c1", name: "bash", arguments: { command: "echo [redacted: github-token]" } }],
			},
		});
		expect(JSON.stringify(r.events)).not.toContain("iVBOR");
		expect(e3).toMatchObject({ kind: "contextEdit", targetId: "r1", replacement: null });
	});

	it("a malformed edit is kept opaque with one diagnostic, and the branch goes on", () => {
		const r = read(
			e("context_edit", "e1", "u1", { targetId: "u1", replacement: { content: 3 } }),
			msg("u2", "e1", user("after")),
		);
		expect(r.diagnostics.map((d) => d.reason)).toEqual(["schema-mismatch"]);
		expect(r.events.map((x) => x.kind)).toEqual(["user", "other", "user"]);
	});
});
