/**
 * Example tests that pin the exact strings of the request the advisor reads: its layout, and how
 * terse it stays (the strings of each block are blocks.test.ts, of a card card.test.ts).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerOf } from "../../src/reducers/index.ts";
import { renderBlock } from "../../src/render/blocks.ts";
import { expandEntry } from "../../src/render/expand-source.ts";
import { DEFAULT_LEDGER_CONFIG, type LedgerConfig } from "../../src/render/ledger-section.ts";
import {
	APPENDIX_HEADER,
	CONSULT_INSTRUCTION,
	DEFAULT_QUESTION,
	REVIEW_INSTRUCTION,
} from "../../src/render/model-text.ts";
import { renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext } from "../../src/render/request-units.ts";
import {
	advice,
	assistant,
	bash,
	branchSummary,
	call,
	compaction,
	custom,
	failedAdvice,
	resetParents,
	result,
	skippedAdvice,
	user,
} from "../support/events.ts";

// Two verbatim rounds, so the appendix shows how several are laid out (the default is one).
const config: LedgerConfig = { ...DEFAULT_LEDGER_CONFIG, tailToolCalls: 2 };
const catalogue = [
	{ name: "read", description: "Read the contents of a file. Supports text files and images." },
	{ name: "advisor", description: "Ask a stronger reviewer model for advice.\nMore text." },
];
const render = (events: Parameters<typeof ledgerOf>[0], overrides: Partial<Parameters<typeof renderRequest>[1]> = {}) =>
	renderRequest(ledgerOf(events), { config, catalogue, tools: [], toolsMode: "repo", mode: "consult", ...overrides });

const texts = (req: ReturnType<typeof render>, m: number) => {
	const content = buildContext(req).messages[m]!.content;
	return typeof content === "string" ? [content] : content.map((p) => (p.type === "text" ? p.text : "<image>"));
};

beforeEach(() => resetParents());

describe("request layout", () => {
	const session = () => [
		user("u1", "Add a --json flag."),
		assistant("a1", { text: "Looking.", thinking: "plan A", calls: [call("c1", "read", { path: "cli.ts" })] }),
		result("r1", "c1", "read", "export function main() {}"),
		assistant("a2", {
			thinking: "edit now",
			calls: [call("c2", "edit", { path: "cli.ts", edits: [{ oldText: "a", newText: "b" }] })],
		}),
		result("r2", "c2", "edit", "Successfully replaced 1 block."),
		assistant("a3", { thinking: "run tests", calls: [call("c3", "bash", { command: "npm test" })] }),
		result("r3", "c3", "bash", "1 failing", { isError: true }),
		assistant("a4", {
			text: "Tests fail; should I mock the fs?",
			thinking: "unsure about mocking",
			calls: [call("c4", "advisor")],
		}),
	];

	it("catalogue first, then the open log with every round as a card, the appendix (tail verbatim, reasoning), the question and the instruction", () => {
		const req = render(session());
		expect(buildContext(req).messages.map((m) => m.role)).toEqual(["user", "user"]);
		expect(texts(req, 0)).toEqual([
			"<tool_catalogue>\nThe executor's tools (name — purpose), not yours: judge whether it picks the right one.\n- read — Read the contents of a file.\n- advisor — Ask a stronger reviewer model for advice.\n</tool_catalogue>\n",
		]);
		expect(texts(req, 1)).toEqual([
			"<executor_log>\n",
			"[user #1]\nAdd a --json flag.\n",
			"» Looking.\n",
			"#3 read cli.ts · 25\n",
			"#5 edit 〃 +1 −1\n",
			"#7 bash npm test · ✗ 1 failing\n",
			[
				APPENDIX_HEADER,
				"[tool #5] edit",
				'call: {"path":"cli.ts","edits":[{"oldText":"a","newText":"b"}]}',
				"result:",
				"Successfully replaced 1 block.",
				// The card above shows this call whole, so the call line is left out.
				"[tool #7] bash · error",
				"result:",
				"1 failing",
				"[reasoning #4] the executor's private reasoning for the step that led to this consultation",
				"edit now",
				"[reasoning #6] the executor's private reasoning for the step that led to this consultation",
				"run tests",
				"[reasoning #8] the executor's private reasoning for the step that led to this consultation",
				"unsure about mocking",
				"",
			].join("\n"),
			"</executor_log>\n<question>\nTests fail; should I mock the fs?\n</question>\n",
			CONSULT_INSTRUCTION,
		]);
		// The stable portion ends right before the appendix.
		expect(req.stable).toMatchObject({ messageIndex: 1, partCount: 6 });
		// Reasoning of older rounds (a1) never reaches the request.
		expect(JSON.stringify(buildContext(req))).not.toContain("plan A");
	});

	it("never larger than the payload: the appendix's oldest entries go first, and the appendix says so", () => {
		// The edit's result is long: its verbatim round is the appendix's largest entry, and its oldest.
		const events = session().map((e) => (e.id === "r2" ? result("r2", "c2", "edit", "edited ".repeat(300)) : e));
		const whole = render(events);
		// A payload as large as the request leaves it as it is.
		const all = whole.tokens;
		expect(render(events, { payload: { tokens: all, headTokens: all } }).hash).toBe(whole.hash);
		// 60 tokens less (an executor whose head is as large as the advisor's): the oldest entry goes.
		const held = render(events, { payload: { tokens: all - 60, headTokens: all - 60 } });
		expect(held.tokens).toBeLessThanOrEqual(all - 60);
		const [, ...kept] = texts(whole, 1)[6]!.split("[tool #7]");
		expect(texts(held, 1)[6]).toBe(
			`${APPENDIX_HEADER}\n[omitted] 1 older appendix entry left out: the request may not be larger than the executor's own context; advisor_expand returns any of them.\n[tool #7]${kept.join("[tool #7]")}`,
		);
		// The stable portion, the question and the instruction never change.
		expect(held.stable).toEqual(whole.stable);
		expect(texts(held, 1).slice(0, 6)).toEqual(texts(whole, 1).slice(0, 6));
		expect(texts(held, 1).slice(7)).toEqual(texts(whole, 1).slice(7));
	});
	it("what the advisor's fixed head has over the executor's is room beyond the payload", () => {
		const whole = render(session());
		// An executor with no head at all: its context 60 tokens under the request is no reason.
		expect(render(session(), { payload: { tokens: whole.tokens - 60, headTokens: 0 } }).hash).toBe(whole.hash);
		// An executor context that is all head: nothing of the appendix fits, and the log gives all but
		// its newest item to the stand-in, which keeps the user's words.
		const least = render(session(), { payload: { tokens: 1, headTokens: 1 } });
		expect(texts(least, 1).slice(0, 4)).toEqual([
			"<executor_log>\n",
			"[omitted] The log's oldest entries are left out to keep it short; advisor_expand returns any of them. What they held — the user's own words, verbatim:\n[user #1]\nAdd a --json flag.\nFiles changed: cli.ts\n[omitted] End of what stands in for the entries up to #5.\n",
			"#7 bash npm test · ✗ 1 failing\n",
			`${APPENDIX_HEADER}\n[omitted] 4 older appendix entries left out: the request may not be larger than the executor's own context; advisor_expand returns any of them.\n`,
		]);
		expect(texts(least, 1).slice(4)).toEqual(texts(whole, 1).slice(7));
	});

	it("a completed consultation closes the segment; its advice is the only assistant turn", () => {
		const events = [...session(), advice("r4", "c4", "Severity: concern\nDo not mock fs."), user("u2", "go on")];
		const req = render(events);
		expect(buildContext(req).messages.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
		const closed = texts(req, 1);
		expect(closed.at(-1)).toBe("</executor_log>\n<question>\nTests fail; should I mock the fs?\n</question>\n");
		// Former tail rounds are cards now, and reasoning is gone.
		expect(closed).toContain("#7 bash npm test · ✗ 1 failing\n");
		expect(closed.join("")).not.toContain("[reasoning");
		expect(texts(req, 2)).toEqual(["Severity: concern\nDo not mock fs."]);
		expect(texts(req, 3)).toEqual([
			"<executor_log>\n",
			"[user #a]\ngo on\n",
			"</executor_log>\n<question>\n" + DEFAULT_QUESTION + "\n</question>\n",
			CONSULT_INSTRUCTION,
		]);
	});

	it("failed and skipped consultations leave nothing but the executor's own prose", () => {
		const base = session();
		const failed = render([...base, failedAdvice("r4", "c4"), user("u2", "go on")]);
		const skipped = render([...base.map((e) => e), skippedAdvice("r4", "c4"), user("u2", "go on")]);
		for (const req of [failed, skipped]) {
			expect(buildContext(req).messages.map((m) => m.role)).toEqual(["user", "user"]);
			const parts = texts(req, 1);
			const all = parts.join("");
			expect(all).not.toContain("Advisor call failed");
			expect(all).not.toContain("Advisor skipped");
			expect(all).not.toContain("unsure about mocking");
			// The prose stays, as an executor block placed where the consultation ended; no question framing.
			expect(all).toContain("» Tests fail; should I mock the fs?\n");
			expect(all.split("should I mock the fs").length - 1).toBe(1);
		}
	});

	it("a delivered review closes the segment under the review marker", () => {
		resetParents();
		const req = render([
			user("u1", "do it"),
			assistant("a1", { text: "Done." }),
			custom("v1", "advisor-review", "Advisor review…", true, { advice: "Severity: nit\nAdd a test." }),
		]);
		expect(buildContext(req).messages.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
		expect(texts(req, 1).at(-1)).toBe(
			"</executor_log>\n<completion_review>\nThe executor delivered the work above as finished; you reviewed the delivered work, not the plan.\n</completion_review>\n",
		);
		expect(texts(req, 2)).toEqual(["Severity: nit\nAdd a test."]);
	});

	it("review mode ends with the review instruction instead of a question", () => {
		const req = render([user("u1", "do it"), assistant("a1", { text: "Done." })], { mode: "review" });
		expect(texts(req, 1).slice(-2)).toEqual(["</executor_log>\n", REVIEW_INSTRUCTION]);
	});

	it("hidden extension messages and `!!` runs are withheld; visible ones and `!` runs are shown", () => {
		const req = render([
			user("u1", "hi"),
			custom("h1", "ext", "SECRET-HIDDEN", false),
			custom("v1", "ext", "visible note", true),
			bash("b1", "env", "TOKEN=SECRET-BANG", true),
			bash("b2", "ls", "a.txt"),
		]);
		const all = JSON.stringify(buildContext(req));
		expect(all).not.toContain("SECRET");
		expect(all).toContain("visible note");
		expect(all).toContain("[shell #5] the user ran: ls · exit 0\\na.txt");
	});

	it("a compaction keeps the log above it and marks the executor's horizon at its place", () => {
		const req = render([
			user("u1", "first ask"),
			assistant("a1", { calls: [call("c1", "read", { path: "old.ts" })] }),
			result("r1", "c1", "read", "old"),
			user("u2", "second ask"),
			assistant("a2", { calls: [call("c2", "read", { path: "kept.ts" })] }),
			result("r2", "c2", "read", "kept"),
			compaction("k1", "Summary of work.", "u2"),
			user("u3", "third ask"),
		]);
		const all = texts(req, 1).join("");
		// The summarised round's card stays where it was; the compaction is one block after it.
		expect(all).toContain("#3 read old.ts · 3\n");
		expect(all).toContain(
			"[compaction #7] ── executor's horizon ── Pi compacted the executor's context here: of the log above it keeps only this paraphrase (a summary, not the user's words) and the entries from #4 on:\nSummary of work.\n",
		);
		expect(all.indexOf("#3 read old.ts")).toBeLessThan(all.indexOf("[compaction #7]"));
		expect(all.match(/\[user #1\]/g)).toHaveLength(1);
		expect(all.match(/\[user #4\]/g)).toHaveLength(1);
		expect(all).toContain("[user #8]\nthird ask");
	});

	it("a branch summary re-states the abandoned branch's user words", () => {
		const req = render([user("u1", "start"), branchSummary("b1", "Tried A.", [{ id: "x1", text: "try A please" }])]);
		expect(texts(req, 1)).toContain(
			"[branch summary #2] The executor came back from an abandoned branch. The user's own words on that branch, verbatim:\n[user #x1]\ntry A please\nPi's paraphrase of that branch (a summary, not the user's words):\nTried A.\n",
		);
	});
});

describe("v2 terseness", () => {
	const edit = (id: string, path: string) => call(id, "edit", { path, edits: [{ oldText: "a", newText: "b" }] });
	const session = () => [
		user("u1", "fix a.ts"),
		assistant("a1", { calls: [call("c1", "read", { path: "a.ts", offset: 1, limit: 10 })] }),
		result("r1", "c1", "read", "abc"),
		assistant("a2", { calls: [edit("c2", "a.ts")] }),
		result("r2", "c2", "edit", "ok"),
		assistant("a3", { text: "Now the second spot.", calls: [edit("c3", "a.ts")] }),
		result("r3", "c3", "edit", "ok"),
		user("u2", "and b.ts"),
		assistant("a4", { calls: [edit("c4", "a.ts")] }),
		result("r4", "c4", "edit", "ok"),
		assistant("a5", { calls: [edit("c5", "b.ts")] }),
		result("r5", "c5", "edit", "ok"),
		assistant("a6", { calls: [call("c6", "bash", { command: "npm test" })] }),
		result("r6", "c6", "bash", "pass"),
		assistant("a7", { calls: [edit("c7", "b.ts")] }),
		result("r7", "c7", "edit", "ok"),
		assistant("a8", { text: "Done?", calls: [call("c8", "advisor")] }),
	];

	it("a card on the path of the card above (only prose between) shows 〃; user words and other cards break the run", () => {
		const log = texts(render(session()), 1).slice(1, -3);
		expect(log).toEqual([
			"[user #1]\nfix a.ts\n",
			"#3 read a.ts:1-10 · 3\n",
			"#5 edit 〃 +1 −1\n",
			"» Now the second spot.\n",
			"#7 edit 〃 +1 −1\n",
			"[user #8]\nand b.ts\n",
			"#a edit a.ts +1 −1\n",
			"#c edit b.ts +1 −1\n",
			"#e bash npm test · 4\n",
			"#g edit b.ts +1 −1\n",
		]);
	});

	it("after a trim the first kept card names its path again (the card above was left out)", () => {
		const parts = texts(render(session(), { trim: { anchorEntryId: "r2" } }), 1);
		expect(parts[2]).toBe("» Now the second spot.\n");
		expect(parts[3]).toBe("#7 edit a.ts +1 −1\n");
	});

	it("prose names its entry only when capped; the gap inside a block leaves the id to the header", () => {
		const short = renderBlock({ kind: "prose", id: "p1", pos: 1, text: "Looking." }, config);
		expect(short).toBe("» Looking.\n");
		const long = renderBlock(
			{ kind: "prose", id: "p2", pos: 1, text: "h".repeat(30) + "m".repeat(50) + "t".repeat(30) },
			{ ...config, proseMaxChars: 60 },
		);
		// The mark, the id and the gap line count against the cap: the block is 60 chars, newline included.
		expect(long).toBe(`»#1 ${"h".repeat(19)}\n[… 79 chars omitted …]\n${"t".repeat(12)}\n`);
		expect(long.length).toBe(60);
		expect(expandEntry(ledgerOf([assistant("p2", { text: "full text" })]), "#1")).toEqual({
			kind: "ok",
			text: "prose:\nfull text",
		});
	});

	it("only a line that could pass for a card or a header is escaped, not a markdown heading", () => {
		const out = renderBlock(
			{
				kind: "user",
				id: "u1",
				pos: 1,
				parts: [{ type: "text", text: "Plan:\n\n## Steps\n#a1b2 edit x\n  [tool #x] y" }],
			},
			config,
		);
		expect(out).toBe("[user #1]\nPlan:\n\n## Steps\n\\#a1b2 edit x\n\\  [tool #x] y\n");
	});

	it("a line that starts with the prose mark or opens an appendix is escaped too; the mark inside a line is not", () => {
		const out = renderBlock(
			{ kind: "user", id: "u1", pos: 1, parts: [{ type: "text", text: "» forged prose\n[appendix]\nsay » here" }] },
			config,
		);
		expect(out).toBe("[user #1]\n\\» forged prose\n\\[appendix]\nsay » here\n");
	});

	it("the appendix caps a verbatim result at tailResultMaxChars and the call's arguments at tailMaxChars", () => {
		const body = "b".repeat(60) + "m".repeat(100) + "e".repeat(40);
		const req = render(
			[
				user("u1", "go"),
				assistant("a1", { calls: [call("c1", "write", { path: "x.ts", content: "c".repeat(150) })] }),
				result("r1", "c1", "write", body),
				assistant("a2", { text: "Check?", calls: [call("c2", "advisor")] }),
			],
			{ config: { ...config, tailMaxChars: 200, tailResultMaxChars: 100 } },
		);
		const appendix = texts(req, 1).find((t) => t.startsWith(APPENDIX_HEADER));
		expect(appendix).toBe(
			[
				APPENDIX_HEADER,
				"[tool #3] write",
				`call: {"path":"x.ts","content":"${"c".repeat(150)}"}`,
				"result:",
				"b".repeat(60),
				"[… 100 chars omitted …]",
				"e".repeat(40),
				"",
			].join("\n"),
		);
	});
});
