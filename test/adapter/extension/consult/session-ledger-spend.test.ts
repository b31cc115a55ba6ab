/**
 * The spend and trim-anchor folds kept next to the session ledger: folded incrementally
 * from the same events, equal to a fold of the whole branch, refolded with it; and the status text
 * after a consultation whose result is not on the branch yet.
 */

import type { AssistantMessage, ToolResultMessage, Usage } from "@mariozechner/pi-ai";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { spendAfter } from "../../../../src/adapter/extension/consult/cost-control.ts";
import { createSessionLedger } from "../../../../src/adapter/extension/consult/session-ledger.ts";
import { CUSTOM_TYPES, eventsFromBranch } from "../../../../src/events/index.ts";
import { formatAdvisorStatus } from "../../../../src/policy/index.ts";
import { spendOf, trimAnchorOf } from "../../../../src/reducers/index.ts";

function usage(input: number, cacheRead: number, total: number): Usage {
	return {
		input,
		output: 10,
		cacheRead,
		cacheWrite: 0,
		totalTokens: input + cacheRead + 10,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
	};
}

function advisorCall(id: string): AssistantMessage {
	return {
		role: "assistant",
		content: [
			{ type: "text", text: "Right?" },
			{ type: "toolCall", id, name: "advisor", arguments: {} },
		],
		api: "faux",
		provider: "faux",
		model: "m",
		usage: usage(0, 0, 0),
		stopReason: "toolUse",
		timestamp: 0,
	};
}

function advisorResult(id: string, u: Usage, promptTokens: number): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: id,
		toolName: "advisor",
		content: [{ type: "text", text: "Severity: none\nok" }],
		details: {
			advisorModel: "p:m",
			usage: u,
			stopReason: "stop",
			request: {
				hash: `h-${id}`,
				messageCount: 2,
				estimatedTokens: 1000,
				timestamp: 1,
				unitCount: 5,
				stableHash: `s-${id}`,
				stableUnits: 4,
				stableTokens: 900,
				promptTokens,
			},
		},
		isError: false,
		timestamp: 0,
	};
}

function batch(sm: SessionManager) {
	const events = eventsFromBranch(sm.getBranch(), sm.getEntries()).events;
	return { spend: spendOf(events), anchor: trimAnchorOf(events) };
}

describe("spend and trim anchor next to the ledger", () => {
	it("fold incrementally, equal to the whole branch folded at once", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		sm.appendMessage({ role: "user", content: "Go.", timestamp: 0 });
		const empty = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(empty.spend.totalUsd).toBe(0);
		expect(empty.anchor.record).toBeUndefined();

		sm.appendMessage(advisorCall("c1"));
		const anchorId = sm.appendCustomEntry(CUSTOM_TYPES.trimAnchor, { anchorEntryId: "x", summaryBoundaryId: null });
		sm.appendMessage(advisorResult("c1", usage(1000, 0, 0.5), 1000));
		const one = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(one.folded.from).toBe("cache");
		expect(one.spend).toEqual(batch(sm).spend);
		expect(one.anchor).toEqual({ record: { anchorEntryId: "x", summaryBoundaryId: null }, entryId: anchorId });
		expect(one.spend.totalUsd).toBe(0.5);
		expect(one.spend.lastRequests[0]).toMatchObject({ model: "p:m", promptTokens: 1000 });

		sm.appendMessage(advisorCall("c2"));
		sm.appendMessage(advisorResult("c2", usage(100, 900, 0.25), 1000));
		const two = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(two.spend).toEqual(batch(sm).spend);
		expect(two.anchor).toEqual(batch(sm).anchor);
		expect(formatAdvisorStatus(two.spend)).toBe("Advisor $0.750 · cache 45%");
	});

	it("refold with the ledger: another branch has its own spend and no anchor", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		const root = sm.appendMessage({ role: "user", content: "Go.", timestamp: 0 });
		sm.appendMessage(advisorCall("c1"));
		sm.appendCustomEntry(CUSTOM_TYPES.trimAnchor, { anchorEntryId: "x", summaryBoundaryId: null });
		sm.appendMessage(advisorResult("c1", usage(1000, 0, 0.5), 1000));
		expect(ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries()).spend.totalUsd).toBe(0.5);
		sm.branch(root);
		sm.appendMessage({ role: "user", content: "Other way.", timestamp: 0 });
		const other = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(other.folded.from).toBe("scratch");
		expect(other.spend.totalUsd).toBe(0);
		expect(other.anchor.record).toBeUndefined();
		expect(formatAdvisorStatus(other.spend)).toBeUndefined();
	});

	it("a compaction resets neither the anchor (the log above it stays) nor the bill", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		const ledger = createSessionLedger();
		sm.appendMessage({ role: "user", content: "Go.", timestamp: 0 });
		sm.appendMessage(advisorCall("c1"));
		sm.appendCustomEntry(CUSTOM_TYPES.trimAnchor, { anchorEntryId: "x", summaryBoundaryId: null });
		sm.appendMessage(advisorResult("c1", usage(1000, 0, 0.5), 1000));
		ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		const kept = sm.appendMessage({ role: "user", content: "More.", timestamp: 0 });
		sm.appendCompaction("Summary.", kept, 5000);
		const after = ledger.update(sm.getSessionId(), sm.getBranch(), sm.getEntries());
		expect(after.folded.from).toBe("cache");
		expect(after.anchor.record).toEqual({ anchorEntryId: "x", summaryBoundaryId: null });
		expect(after.spend.totalUsd).toBe(0.5);
		expect(after).toMatchObject(batch(sm));
	});
});

describe("spendAfter", () => {
	it("adds the consultation's bill (top-level usage, else details.usage) to the branch's", () => {
		const sm = SessionManager.inMemory("/tmp/x");
		sm.appendMessage(advisorCall("c1"));
		sm.appendMessage(advisorResult("c1", usage(1000, 0, 0.5), 1000));
		const spend = batch(sm).spend;
		const after = spendAfter(spend, { usage: usage(100, 900, 0.25), details: {} });
		expect(formatAdvisorStatus(after)).toBe("Advisor $0.750 · cache 45%");
		expect(spendAfter(spend, { details: { usage: usage(100, 900, 0.25) } })).toEqual(after);
		expect(spendAfter(spend, { details: {} })).toBe(spend);
	});
});
