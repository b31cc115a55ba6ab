// The baseline's messages: Pi's own context for a branch, plus the tool inventory.
import { describe, expect, it } from "vitest";
import {
	baselineMessages,
	INVENTORY_HEADER,
	llmMessages,
	prepareBaseline,
} from "../../../../src/adapter/extension/baseline/messages.ts";
import { sessionTools } from "../../../../src/adapter/lab/replay/tool-set.ts";
import { readSession } from "../../../../src/events/index.ts";
import { buildSession } from "../../../support/session-gen.ts";

describe("baseline", () => {
	it("Pi's context for the branch, the in-flight advisor call stripped, the inventory first", () => {
		const session = buildSession([
			{ t: "user", text: "hello there", long: false, images: 0 },
			{
				t: "consult",
				prose: "question?",
				thinking: "",
				outcome: "ok",
				advice: "Severity: none\nfine",
				sibling: null,
			},
		]);
		const read = readSession(session.jsonl);
		const tools = sessionTools("/tmp", []);
		const branch = prepareBaseline(read.path, tools.inventory);
		const resultIndex = read.path.findIndex((e) => e.id === session.consultations[0]!.resultEntryId);
		const messages = baselineMessages(branch, resultIndex, session.consultations[0]!.callId);
		expect(messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
		const inventory = JSON.stringify(messages[0]);
		expect(inventory).toContain(INVENTORY_HEADER);
		for (const name of ["read", "bash", "edit", "write", "advisor"]) expect(inventory).toContain(`### ${name}\\n`);
		expect(inventory).not.toContain("### grep"); // inactive by default and never called here
		const assistant = messages[2]!;
		expect(assistant.role === "assistant" && assistant.content.some((p) => p.type === "toolCall")).toBe(false);
		expect(JSON.stringify(assistant)).toContain("question?");
		// Without the strip, the call is there.
		expect(JSON.stringify(baselineMessages(branch, resultIndex))).toContain('"name":"advisor"');
	});

	it("a parentId cycle on the path cannot hang Pi's walk", () => {
		const session = buildSession([
			{ t: "user", text: "a", long: false, images: 0 },
			{ t: "user", text: "b", long: false, images: 0 },
			{ t: "user", text: "c", long: false, images: 0 },
		]);
		const entries = session.entries.map((e) => ({ ...e }));
		entries[0]!.parentId = entries[2]!.id;
		const jsonl = [session.header, ...entries].map((e) => JSON.stringify(e)).join("\n");
		const read = readSession(jsonl);
		const branch = prepareBaseline(read.path, []);
		expect(baselineMessages(branch, read.path.length).length).toBe(1 + read.path.length);
	});
});

describe("Pi 1.x's system message", () => {
	it("is left out of the baseline, which counts no system prompt, whichever host converts the context", () => {
		const user = { role: "user" as const, content: "hi", timestamp: 0 };
		const system = { role: "system", content: "", sections: { preamble: "You are…" }, timestamp: 0 };
		expect(llmMessages([system, user])).toEqual([user]);
	});
});
