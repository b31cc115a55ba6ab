// The committed sample sessions (samples/*.jsonl, recorded by scripts/record-samples.ts against a real
// Pi 0.73.1 host) exist, are valid Pi v3 JSONL and still contain every feature the replay command and
// the tests rely on. Reads the files with plain JSON.parse (independent of the project's own reader).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import {
	type FeatureName,
	hasFork,
	missingFeatures,
	parseSampleJsonl,
	type SampleFile,
	structuralProblems,
} from "../../../scripts/sample-features.ts";
import { renderAt } from "../../../src/adapter/lab/request/render-at.ts";
import { flatten } from "../../../src/render/index.ts";

const SAMPLES = fileURLToPath(new URL("../../../samples", import.meta.url));

const EXPECTED: Record<string, FeatureName[]> = {
	"tools.jsonl": [
		"read",
		"bash-fail",
		"bash-pass",
		"edit-single",
		"edit-multi",
		"tool-error",
		"write",
		"grep",
		"find",
		"ls",
		"parallel-calls",
		"image-result",
		"thinking",
		"custom-hidden",
		"custom-visible",
		"custom-entry",
		"user-bash",
		"user-bash-excluded",
		"hostile-user",
		"unicode-user",
		"hostile-tool-output",
		"model-change",
		"thinking-change",
		"session-name",
		"advisor",
		"advisor-ok",
		"advisor-tools",
		"advisor-skipped",
	],
	"compaction.jsonl": [
		"read",
		"bash-fail",
		"bash-pass",
		"edit-single",
		"parallel-calls",
		"thinking",
		"long-user",
		"compaction",
		"compaction-twice",
		"compaction-split-turn",
	],
	"long/taskq.jsonl": [
		"read",
		"bash-fail",
		"bash-pass",
		"grep",
		"find",
		"ls",
		"parallel-calls",
		"thinking",
		"compaction",
		"long-session",
		"advisor",
		"advisor-ok",
		"advisor-tools",
		"advisor-many",
	],
	"branching.jsonl": [
		"read",
		"write",
		"bash-fail",
		"bash-pass",
		"edit-single",
		"edit-multi",
		"parallel-calls",
		"thinking",
		"branch-summary",
		"label",
		"user-bash",
		"custom-visible",
		"custom-entry",
		"advisor",
		"advisor-ok",
		"advisor-failed",
		"advisor-review",
	],
};

const load = (name: string): SampleFile => parseSampleJsonl(readFileSync(join(SAMPLES, name), "utf8"), name);
const byType = (f: SampleFile, type: string) => f.entries.filter((e) => e.type === type);
const byRole = (f: SampleFile, role: string) =>
	f.entries.filter((e) => e.type === "message" && e.message.role === role).map((e) => e.message);

describe.each(Object.keys(EXPECTED))("samples/%s", (name) => {
	test("is valid JSONL: every line parses, line 1 is a v3 session header", () => {
		const text = readFileSync(join(SAMPLES, name), "utf8");
		const lines = text.split("\n");
		expect(lines.at(-1)).toBe(""); // newline-terminated
		for (const line of lines.slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow();
		const header = JSON.parse(lines[0]!);
		expect(header).toMatchObject({ type: "session", version: 3 });
		expect(typeof header.id).toBe("string");
		expect(typeof header.cwd).toBe("string");
	});

	test("forms a well-formed tree (unique 8-hex ids, parents earlier in the file, results match calls)", () => {
		expect(structuralProblems(load(name))).toEqual([]);
	});

	test("contains every listed feature", () => {
		expect(missingFeatures(load(name).entries, EXPECTED[name]!)).toEqual([]);
	});

	test("was recorded with the faux provider (no real model)", () => {
		for (const m of byRole(load(name), "assistant")) expect(m.provider).toBe("faux");
	});
});

describe("feature specifics the ledger tests depend on", () => {
	test("tools: `!` is in context, `!!` is excludeFromContext; hidden and visible custom messages", () => {
		const f = load("tools.jsonl");
		const bash = byRole(f, "bashExecution");
		expect(bash.map((m) => [m.command, m.excludeFromContext === true])).toEqual([
			["git diff --stat", false],
			["git log --oneline", true],
		]);
		expect(byType(f, "custom_message").map((e) => e.display)).toEqual([true, false]);
	});

	test("tools: image result is {type:'image', data, mimeType} from reading docs/logo.png", () => {
		const f = load("tools.jsonl");
		const calls = byRole(f, "assistant").flatMap((m) => m.content.filter((b: any) => b.type === "toolCall"));
		const logoCall = calls.find((c: any) => c.name === "read" && c.arguments.path === "docs/logo.png");
		const result = byRole(f, "toolResult").find((m) => m.toolCallId === logoCall.id);
		expect(result.content).toContainEqual(expect.objectContaining({ type: "image", mimeType: "image/png" }));
	});

	test("compaction: two compactions, the second on top of the first, each firstKeptEntryId on the branch", () => {
		const f = load("compaction.jsonl");
		const ids = f.entries.map((e) => e.id);
		const [c1, c2] = byType(f, "compaction");
		expect(c1.fromHook).toBe(false);
		expect(ids.indexOf(c1.firstKeptEntryId)).toBeLessThan(ids.indexOf(c1.id));
		expect(ids.indexOf(c2.firstKeptEntryId)).toBeGreaterThan(ids.indexOf(c1.id));
		expect(c2.summary).toContain("**Turn Context (split turn):**");
		const kept1 = f.entries.find((e) => e.id === c1.firstKeptEntryId);
		expect(kept1.message.role).toBe("user"); // the long pasted log survives the first compaction
		expect(kept1.message.content[0].text.length).toBeGreaterThan(20_000);
	});

	test("branching: branch_summary sits at the fork, the abandoned branch stays in the file", () => {
		const f = load("branching.jsonl");
		const [bs] = byType(f, "branch_summary");
		expect(bs.fromId).toBe(bs.parentId);
		expect(hasFork(f.entries)).toBe(true);
		const children = f.entries.filter((e) => e.parentId === bs.parentId);
		expect(children.length).toBe(2);
		expect(byType(f, "label")[0]).toMatchObject({ targetId: bs.id, label: "colours-abandoned" });
	});
});

describe("advisor calls (the real extension, faux advisor)", () => {
	const advisorResults = (f: SampleFile) => byRole(f, "toolResult").filter((m) => m.toolName === "advisor");

	test("tools: advice after an investigation round, a skip after a mid-run switch to a disabled model, advice again", () => {
		const [investigated, skipped, last] = advisorResults(load("tools.jsonl"));
		expect(investigated.content[0].text.startsWith("Severity: none\n")).toBe(true);
		expect(investigated.details).toMatchObject({
			advisorModel: "faux:faux-advisor",
			effort: "high",
			severity: "none",
			stopReason: "stop",
			toolCalls: { count: 2, names: ["git_diff", "advisor_expand"] },
		});
		// Both requests of the consultation are billed; the rounds themselves are not in the file.
		expect(investigated.details.attempts.map((a: any) => a.stopReason)).toEqual(["toolUse", "stop"]);
		expect(JSON.stringify(load("tools.jsonl").entries)).not.toContain("Checking the diff and the first test run.");
		expect(skipped.content[0].text).toBe(
			"Advisor skipped: the advisor is disabled for executor model faux/faux-coder-mini. Continue without advisor; do not repeat this call.",
		);
		expect(skipped.details).toMatchObject({ skipped: true });
		expect(last.details).toMatchObject({ severity: "nit", toolCalls: { count: 2, names: ["read", "read"] } });
	});

	test("branching: a provider failure (retried once), then advice on the new branch", () => {
		const [failed, advice] = advisorResults(load("branching.jsonl"));
		expect(failed.content[0].text).toBe("Advisor call failed: 503 upstream overloaded");
		expect(failed.details).toMatchObject({ stopReason: "error", errorMessage: "503 upstream overloaded" });
		expect(failed.details.attempts.map((a: any) => a.stopReason)).toEqual(["error", "error"]);
		expect(advice.details).toMatchObject({ severity: "nit", stopReason: "stop" });
		// The first request's record: what the next consultation's estimate compares with.
		expect(advice.details.request).toMatchObject({
			routingKey: `advisor:${load("branching.jsonl").header.id}`,
			stableUnits: expect.any(Number),
			promptTokens: expect.any(Number),
		});
	});

	test("branching: completion reviews — a delivered nit after its usage record, a `none` that shows nothing", () => {
		const f = load("branching.jsonl");
		const records = byType(f, "custom").filter((e) => e.customType === "advisor-usage");
		expect(records.map((e) => [e.data.kind, e.data.severity, e.data.outcome])).toEqual([
			["review", "nit", "advice"],
			["review", "none", "advice"],
		]);
		const [shown] = byType(f, "custom_message");
		expect(shown).toMatchObject({
			customType: "advisor-review",
			display: true,
			details: { severity: "nit", triggerTurn: false, answerEntryId: records[0].data.answerEntryId },
		});
		expect(shown.parentId).toBe(records[0].id);
		expect(shown.content).toBe(`Advisor review of your finished work:\n\n${shown.details.advice}`);
		// Each names the executor's final answer it judged; the `none` one sits on the abandoned branch.
		for (const record of records) {
			const answer = f.entries.find((e) => e.id === record.data.answerEntryId);
			expect(answer.message).toMatchObject({ role: "assistant", stopReason: "stop" });
			expect(record.parentId).toBe(answer.id);
		}
	});
});

describe("the long samples (the default replay when Pi's folder has nothing to replay)", () => {
	const PI_MONO = "long/pi-mono-large-session.jsonl";
	const GJC = "long/gjc-inline-agent-design.jsonl";

	test("stay small enough to ship: under 2 MB each", () => {
		for (const name of [PI_MONO, GJC, "long/taskq.jsonl"])
			expect(statSync(join(SAMPLES, name)).size).toBeLessThan(2_000_000);
	});

	test("pi-mono: shipped unchanged, its source, licence and hash in the README", () => {
		const bytes = readFileSync(join(SAMPLES, PI_MONO));
		const sha = createHash("sha256").update(bytes).digest("hex");
		const readme = readFileSync(join(SAMPLES, "README.md"), "utf8");
		expect(readme).toContain(`SHA-256 \`${sha}\``);
		expect(readme).toContain("packages/coding-agent/test/fixtures/large-session.jsonl");
		expect(readme).toContain("MIT License (pi-mono)");
		expect(readme).toContain("Permission is hereby granted, free of charge");
		const shared = join(SAMPLES, "../../shared/sessions/pi-mono-large-session.jsonl");
		if (existsSync(shared)) expect(bytes.equals(readFileSync(shared))).toBe(true);
	});

	test("gjc: shipped unchanged (its broken line too), its source, licence and hash in the README", () => {
		const bytes = readFileSync(join(SAMPLES, GJC));
		const sha = createHash("sha256").update(bytes).digest("hex");
		const readme = readFileSync(join(SAMPLES, "README.md"), "utf8");
		expect(readme).toContain(`SHA-256 \`${sha}\``);
		expect(readme).toContain("sessions/02-inline-agent-design/session.jsonl");
		expect(readme).toContain("MIT License (agent-complex-task)");
		const shared = join(SAMPLES, "../../shared/sessions/gjc-inline-agent-design.jsonl");
		if (existsSync(shared)) expect(bytes.equals(readFileSync(shared))).toBe(true);
	});

	test("taskq: every consultation's request carries, verbatim, the advice given since the last compaction", () => {
		const text = readFileSync(join(SAMPLES, "long/taskq.jsonl"), "utf8");
		const f = load("long/taskq.jsonl");
		const calls = f.entries.filter(
			(e) =>
				e.type === "message" &&
				e.message.role === "assistant" &&
				e.message.content.some((c: any) => c.type === "toolCall" && c.name === "advisor"),
		);
		const index = (id: string) => f.entries.findIndex((e) => e.id === id);
		const answers = byRole(f, "toolResult")
			.filter((m) => m.toolName === "advisor")
			.map((m) => ({ at: f.entries.findIndex((e) => e.message === m), text: m.content[0].text as string }));
		expect(calls).toHaveLength(6);
		expect(answers.every((a) => a.text.startsWith("Severity: "))).toBe(true);
		let carried = 0;
		for (const call of calls) {
			const at = index(call.id);
			const compaction = f.entries.filter((e, i) => i < at && e.type === "compaction").at(-1);
			const since = compaction === undefined ? -1 : index(compaction.firstKeptEntryId);
			const request = flatten(renderAt("taskq", text, undefined, call.id).request);
			for (const answer of answers.filter((a) => a.at < at && a.at > since)) {
				expect(request).toContain(answer.text.slice(answer.text.indexOf("\n") + 1));
				carried++;
			}
		}
		expect(carried).toBeGreaterThanOrEqual(6);
	});
});

test("samples/README.md describes every sample and how to regenerate", () => {
	const readme = readFileSync(join(SAMPLES, "README.md"), "utf8");
	for (const name of Object.keys(EXPECTED)) expect(readme).toContain(`\`${name}\``);
	expect(readme).toContain("npx tsx scripts/record-samples.ts");
	expect(readme).toContain("0.73.1");
});
