/**
 * Privacy at normalisation (docs/privacy.md): every text an event carries is redacted, and an
 * executor's read of a path the deny list covers is withheld whole, with its size kept.
 */

import { describe, expect, it } from "vitest";
import {
	eventsFromBranch,
	migrateEntries,
	normalizeBranch,
	parseSessionText,
	readSession,
	WITHHELD_READ_TEXT,
} from "../../src/events/index.ts";
import { workspacePath } from "../../src/events/redact/withhold.ts";
import type { LedgerEvent } from "../../src/events/types.ts";
import { assistant, e, header, jsonl, msg, toolResult, user } from "./helpers.ts";
import { PLANTS } from "./redact/credentials.ts";

const OFF = { redact: false, patterns: [], allow: [] } as const;
const github = PLANTS["github-classic"]!(7).text;
const stripe = PLANTS["stripe-key"]!(8).text;
const openai = PLANTS["openai-api-key"]!(9).text;
const GH = "[redacted: github-token]";
const STRIPE = "[redacted: stripe-key]";

const call = (id: string, name: string, args: Record<string, unknown>) => ({
	type: "toolCall",
	id,
	name,
	arguments: args,
});

/** A session that carries a credential in every place an event has text. */
function everyPlace(): unknown[] {
	return [
		header({ cwd: "/w" }),
		msg("u1", null, user(`my token is ${github}`)),
		msg(
			"a1",
			"u1",
			assistant(
				[
					{ type: "thinking", thinking: `the user pasted ${github}` },
					{ type: "text", text: `I will use ${stripe}` },
					call("c1", "bash", { command: `curl -H "Authorization: Bearer ${github}" x`, env: { key: stripe } }),
				],
				{ stopReason: "toolUse" },
			),
		),
		msg("r1", "a1", toolResult("c1", `STRIPE=${stripe}`, { toolName: "bash" })),
		msg("b1", "r1", {
			role: "bashExecution",
			command: `echo ${github}`,
			output: github,
			exitCode: 0,
			timestamp: 4,
		}),
		e("custom_message", "m1", "b1", { customType: "note", content: `note ${stripe}`, display: true }),
		e("custom_message", "m2", "m1", {
			customType: "advisor-review",
			content: `review ${github}`,
			display: true,
			details: { advice: `rotate ${github}`, severity: "concern" },
		}),
		e("compaction", "k1", "m2", { summary: `summary quotes ${stripe}`, firstKeptEntryId: "m2", tokensBefore: 9 }),
	];
}

describe("every text an event carries is redacted", () => {
	it("user words, prose, reasoning, call arguments, results, ! runs, extension messages, review advice, summaries", () => {
		const read = readSession(jsonl(everyPlace()));
		const all = JSON.stringify(read.events);
		expect(all).not.toContain(github);
		expect(all).not.toContain(stripe);
		const [u1, a1, r1, b1, m1, m2, k1] = read.events as LedgerEvent[];
		expect(u1).toMatchObject({ parts: [{ type: "text", text: `my token is ${GH}` }] });
		expect(a1).toMatchObject({
			text: `I will use ${STRIPE}`,
			thinking: `the user pasted ${GH}`,
			calls: [
				{
					id: "c1",
					name: "bash",
					arguments: {
						command: 'curl -H "Authorization: Bearer [redacted: github-token]" x',
						env: { key: STRIPE },
					},
				},
			],
		});
		expect(r1).toMatchObject({ parts: [{ type: "text", text: `STRIPE=${STRIPE}` }] });
		expect(b1).toMatchObject({ command: `echo ${GH}`, output: GH });
		expect(m1).toMatchObject({ parts: [{ type: "text", text: `note ${STRIPE}` }] });
		expect(m2).toMatchObject({
			parts: [{ type: "text", text: `review ${GH}` }],
			details: { advice: `rotate ${GH}`, severity: "concern" },
		});
		expect(k1).toMatchObject({ summary: `summary quotes ${STRIPE}` });
	});

	it("the user words of an abandoned branch a summary re-states are redacted too", () => {
		const read = readSession(
			jsonl([
				header(),
				msg("u1", null, user("start")),
				msg("u2", "u1", user(`abandoned ${github}`)),
				e("branch_summary", "s1", "u1", { fromId: "u2", summary: `went nowhere with ${openai}` }),
			]),
		);
		const summary = read.events.at(-1)!;
		expect(summary).toMatchObject({
			kind: "branchSummary",
			hiddenUserWords: [{ id: "u2", parts: [{ type: "text", text: `abandoned ${GH}` }] }],
		});
		expect(JSON.stringify(summary)).not.toContain(openai);
	});

	it("with redaction off every text is as written", () => {
		const read = readSession(jsonl(everyPlace()), { privacy: OFF });
		const all = JSON.stringify(read.events);
		expect(all).toContain(github);
		expect(all).toContain(stripe);
		expect(all).not.toContain("[redacted:");
	});

	it("a user pattern and the allow list apply", () => {
		const read = readSession(jsonl([header(), msg("u1", null, user(`ACME-123456 and ${github}`))]), {
			privacy: {
				redact: true,
				patterns: [{ pattern: "ACME-[0-9]{6}", kind: "acme" }],
				allow: [{ kind: "exact", value: github }],
			},
		});
		expect(read.events[0]).toMatchObject({ parts: [{ text: `[redacted: acme] and ${github}` }] });
	});
});

/** A read of `path` whose result is `text`, after a user message. */
function readOf(path: string, text: string, over: Record<string, unknown> = {}, cwd = "/w"): string {
	return jsonl([
		header({ cwd }),
		msg("u1", null, user("look")),
		msg("a1", "u1", assistant([call("c1", "read", { path })], { stopReason: "toolUse" })),
		msg("r1", "a1", toolResult("c1", text, over)),
	]);
}

const ENV = `API_TOKEN=${github}\nPORT=3000\n`;

describe("an executor's read of a path the deny list covers is withheld whole", () => {
	it("the result becomes the withheld line and keeps the size of what it replaced", () => {
		const result = readSession(readOf(".env", ENV)).events.at(-1)!;
		expect(result).toMatchObject({
			kind: "toolResult",
			parts: [{ type: "text", text: WITHHELD_READ_TEXT }],
			withheld: { chars: ENV.length },
		});
		expect(JSON.stringify(result)).not.toContain("PORT=3000");
	});

	it("text parts are sized as they are joined; images count nothing", () => {
		const content = [
			{ type: "text", text: "ab" },
			{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
			{ type: "text", text: "cde" },
		];
		expect(readSession(readOf("keys/server.pem", "", { content })).events.at(-1)).toMatchObject({
			withheld: { chars: 6 },
			parts: [{ type: "text", text: WITHHELD_READ_TEXT }],
		});
	});

	it.each([
		["/w/.env", "/w"],
		["./config/../.env.local", "/w"],
		["/home/me/.ssh/id_ed25519", "/w"],
		["C:\\proj\\.aws\\credentials", "/w"],
		["sub/.docker/config.json", "/w"],
		["deploy/server.KEY", "/w"],
	])("%s (cwd %s) is withheld", (path, cwd) => {
		expect(readSession(readOf(path, ENV, {}, cwd)).events.at(-1)).toMatchObject({ withheld: { chars: ENV.length } });
	});

	it.each([
		["src/secrets/index.ts", "export const x = 1;"],
		["README.md", "# title"],
		["environment.ts", "x"],
	])("%s is not withheld (and its text is only redacted)", (path, text) => {
		const event = readSession(readOf(path, text)).events.at(-1)!;
		expect(event).toMatchObject({ parts: [{ type: "text", text }] });
		expect("withheld" in event).toBe(false);
	});

	it("a failed read carries the tool's error, redacted, not withheld", () => {
		const event = readSession(readOf(".env", "ENOENT: no such file", { isError: true })).events.at(-1)!;
		expect(event).toMatchObject({ parts: [{ text: "ENOENT: no such file" }], isError: true });
		expect("withheld" in event).toBe(false);
	});

	it("only reading tools: a bash `cat .env` is redacted, not withheld", () => {
		const text = jsonl([
			header(),
			msg("a1", null, assistant([call("c1", "bash", { command: "cat .env" })], { stopReason: "toolUse" })),
			msg("r1", "a1", toolResult("c1", ENV, { toolName: "bash" })),
		]);
		const event = readSession(text).events.at(-1)!;
		expect(event).toMatchObject({ parts: [{ text: `API_TOKEN=${GH}\nPORT=3000\n` }] });
		expect("withheld" in event).toBe(false);
	});

	it("the configured list replaces the default; anchored patterns are judged relative to the cwd; [] withholds nothing", () => {
		const denyPatterns = ["private/data"];
		expect(readSession(readOf("/w/private/data/x.csv", "a,b"), { denyPatterns }).events.at(-1)).toMatchObject({
			withheld: { chars: 3 },
		});
		expect(
			readSession(readOf("/other/private/data/x.csv", "a,b"), { denyPatterns }).events.at(-1),
		).not.toHaveProperty("withheld");
		expect(readSession(readOf(".env", ENV), { denyPatterns }).events.at(-1)).not.toHaveProperty("withheld");
		const none = readSession(readOf(".env", ENV), { denyPatterns: [] }).events.at(-1)!;
		expect(none).not.toHaveProperty("withheld");
		expect(none).toMatchObject({ parts: [{ text: `API_TOKEN=${GH}\nPORT=3000\n` }] });
	});

	it("withholding does not depend on redaction: with redaction off a denied read is still withheld", () => {
		expect(readSession(readOf(".env", ENV), { privacy: OFF }).events.at(-1)).toMatchObject({
			parts: [{ text: WITHHELD_READ_TEXT }],
		});
	});

	it("the call is found above the result when only the result is normalised (the replay's cache, incremental folds)", () => {
		const parsed = parseSessionText(readOf(".env", ENV));
		const entries = migrateEntries(parsed);
		const last = entries.at(-1)!;
		expect(normalizeBranch([last], entries)[0]).toMatchObject({ withheld: { chars: ENV.length } });
		const branch = entries.map((r) => r.entry);
		const tail = eventsFromBranch(branch, branch, { from: 2, cwd: "/w" });
		expect(tail.events).toHaveLength(1);
		expect(tail.events[0]).toMatchObject({ withheld: { chars: ENV.length } });
	});
});

describe("workspacePath: a path as the deny list judges it", () => {
	it.each([
		[".env", "/w", ".env"],
		["/w/a/b", "/w", "a/b"],
		["/w", "/w", "."],
		["/w/", "/w/", "."],
		["./a/../b/./c", "/w", "b/c"],
		["../x/.env", "/w/p", "/w/x/.env"],
		["/elsewhere/a", "/w", "/elsewhere/a"],
		["/wx/a", "/w", "/wx/a"],
		["a\\b\\c", "/w", "a/b/c"],
		["a/b", undefined, "a/b"],
		["../../a", undefined, "../../a"],
		["/a/../../b", undefined, "/b"],
		["/a/b", "/", "a/b"],
	])("%s in %s → %s", (path, cwd, expected) => {
		expect(workspacePath(path, cwd)).toBe(expected);
	});
});
