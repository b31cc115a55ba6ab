/**
 * The per-session folded ledger: only entries new since the last consultation are folded, and
 * the result is always what folding the whole branch at once gives.
 */

import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { createSessionLedger } from "../../../../src/adapter/extension/consult/session-ledger.ts";
import { eventsFromBranch, type PrivacyOptions } from "../../../../src/events/index.ts";
import { ledgerOf } from "../../../../src/reducers/index.ts";
import { DEFAULT_LEDGER_CONFIG, renderBlock, zeroUsage } from "../../../../src/render/index.ts";

function assistantCall(id: string, name: string, text = "", args: Record<string, unknown> = {}): AssistantMessage {
	return {
		role: "assistant",
		content: [...(text ? [{ type: "text" as const, text }] : []), { type: "toolCall", id, name, arguments: args }],
		api: "faux",
		provider: "faux",
		model: "m",
		usage: zeroUsage(),
		stopReason: "toolUse",
		timestamp: 0,
	};
}

function toolResult(callId: string, name: string, text: string, details?: unknown): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: callId,
		toolName: name,
		content: [{ type: "text", text }],
		details,
		isError: false,
		timestamp: 0,
	};
}

function batch(sm: SessionManager) {
	return ledgerOf(eventsFromBranch(sm.getBranch(), sm.getEntries()).events);
}

describe("incremental folding", () => {
	it("folds only the new entries and equals a fold of the whole branch", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		sm.appendMessage({ role: "user", content: "Fix it.", timestamp: 0 });
		sm.appendMessage(assistantCall("c1", "read"));
		sm.appendMessage(toolResult("c1", "read", "file"));
		const first = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(first.folded).toEqual({ from: "scratch", newEvents: 3 });

		sm.appendMessage(assistantCall("adv1", "advisor", "Right?"));
		sm.appendMessage(toolResult("adv1", "advisor", "Severity: none\nyes", { stopReason: "stop" }));
		const second = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(second.folded).toEqual({ from: "cache", newEvents: 2 });
		expect(second.memo).toBe(first.memo);
		expect(second.state).toEqual(batch(sm));
		expect(second.state.closed).toHaveLength(1);

		const again = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(again.folded).toEqual({ from: "cache", newEvents: 0 });
		expect(again.state).toBe(second.state);
	});

	it("refolds from scratch when the branch no longer extends the folded path", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		const u1 = sm.appendMessage({ role: "user", content: "One.", timestamp: 0 });
		sm.appendMessage({ role: "user", content: "Two.", timestamp: 0 });
		ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		sm.branch(u1);
		sm.appendMessage({ role: "user", content: "Two, differently.", timestamp: 0 });
		const after = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(after.folded.from).toBe("scratch");
		expect(after.state).toEqual(batch(sm));
		expect(JSON.stringify(after.state.open)).not.toContain('"Two."');
	});

	it("refolds when the branch got shorter (tree navigation back up)", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		const u1 = sm.appendMessage({ role: "user", content: "One.", timestamp: 0 });
		sm.appendMessage({ role: "user", content: "Two.", timestamp: 0 });
		ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		sm.branch(u1);
		const after = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(after.folded).toEqual({ from: "scratch", newEvents: 1 });
	});

	it("refolds when the privacy settings or the deny list change, and folds with the current ones", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		let options: PrivacyOptions = {};
		const ledger = createSessionLedger(() => options);
		const token = `ghp_${"aB3".repeat(12)}`;
		sm.appendMessage({ role: "user", content: `token ${token}`, timestamp: 0 });
		sm.appendMessage(assistantCall("c1", "read", "", { path: "/tmp/x/.env" }));
		sm.appendMessage(toolResult("c1", "read", "A=1"));
		const redacted = ledger.update("s", sm.getBranch(), sm.getEntries(), "/tmp/x");
		expect(JSON.stringify(redacted.state.open)).not.toContain(token);
		expect(JSON.stringify(redacted.state.open)).toContain("withheld");
		expect(ledger.update("s", sm.getBranch(), sm.getEntries(), "/tmp/x").folded.from).toBe("cache");

		options = { privacy: { redact: false, patterns: [], allow: [] } };
		const plain = ledger.update("s", sm.getBranch(), sm.getEntries(), "/tmp/x");
		expect(plain.folded.from).toBe("scratch");
		expect(JSON.stringify(plain.state.open)).toContain(token);

		options = { ...options, denyPatterns: [] };
		const open = ledger.update("s", sm.getBranch(), sm.getEntries(), "/tmp/x");
		expect(open.folded.from).toBe("scratch");
		expect(JSON.stringify(open.state.open)).toContain("A=1");
		// The same settings again, as a new object: nothing to refold.
		options = { privacy: { redact: false, patterns: [], allow: [] }, denyPatterns: [] };
		expect(ledger.update("s", sm.getBranch(), sm.getEntries(), "/tmp/x").folded.from).toBe("cache");
	});

	it("refolds for another session, and after reset", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		sm.appendMessage({ role: "user", content: "One.", timestamp: 0 });
		ledger.update("s1", sm.getBranch(), sm.getEntries());
		expect(ledger.update("s2", sm.getBranch(), sm.getEntries()).folded.from).toBe("scratch");
		expect(ledger.update("s2", sm.getBranch(), sm.getEntries()).folded.from).toBe("cache");
		ledger.reset();
		expect(ledger.update("s2", sm.getBranch(), sm.getEntries()).folded.from).toBe("scratch");
	});

	it("a compaction appended to the branch folds incrementally and still equals the batch fold", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		sm.appendMessage({ role: "user", content: "One.", timestamp: 0 });
		const kept = sm.appendMessage({ role: "user", content: "Two.", timestamp: 0 });
		ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		sm.appendCompaction("Summary of one.", kept, 1000);
		const after = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(after.folded).toEqual({ from: "cache", newEvents: 1 });
		expect(after.state).toEqual(batch(sm));
	});

	it("an invalid entry on the branch yields no event and does not break the position match", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		sm.appendMessage({ role: "user", content: "One.", timestamp: 0 });
		const branch = [...sm.getBranch(), { type: "message", id: "bad00001", parentId: sm.getLeafId(), timestamp: "x" }];
		ledger.update("s", branch, branch);
		const next = {
			type: "message",
			id: "ok000001",
			parentId: "bad00001",
			timestamp: new Date(0).toISOString(),
			message: { role: "user", content: "Two.", timestamp: 0 },
		};
		const grown = [...branch, next];
		const after = ledger.update("s", grown, grown);
		expect(after.folded.from).toBe("cache");
		expect(after.state).toEqual(ledgerOf(eventsFromBranch(grown, grown).events));
	});
});

describe("the session cwd", () => {
	it("cards are relative to the cwd the ledger was folded with; another cwd refolds from scratch", () => {
		const sm = SessionManager.inMemory("/work/app");
		const ledger = createSessionLedger();
		sm.appendMessage({ role: "user", content: "Look.", timestamp: 0 });
		sm.appendMessage(assistantCall("c1", "read", "", { path: "/work/app/src/a.ts" }));
		sm.appendMessage(toolResult("c1", "read", "abc"));
		const cards = (state: ReturnType<typeof batch>) =>
			state.open
				.toArray()
				.map((b) => renderBlock(b, DEFAULT_LEDGER_CONFIG))
				.join("");

		const first = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries(), sm.getCwd());
		expect(first.state.cwd).toBe("/work/app");
		expect(cards(first.state)).toContain("read src/a.ts · 3\n");

		sm.appendMessage({ role: "user", content: "More.", timestamp: 0 });
		const same = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries(), sm.getCwd());
		expect(same.folded.from).toBe("cache");

		const other = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries(), "/work");
		expect(other.folded.from).toBe("scratch");
		expect(cards(other.state)).toContain("read app/src/a.ts · 3\n");
	});
});
