/** A delivered completion review replays as the advisor's own past answer; a `none` review leaves only its usage record. */
import { beforeEach, describe, expect, it } from "vitest";
import { CUSTOM_TYPES, type LedgerEvent } from "../../src/events/index.ts";
import { reviewDecision, reviewDelivery, reviewUsageRecord } from "../../src/policy/index.ts";
import { ledgerOf } from "../../src/reducers/index.ts";
import { spendOf } from "../../src/reducers/spend.ts";
import { DEFAULT_LEDGER_CONFIG } from "../../src/render/ledger-section.ts";
import { REVIEW_MARKER, TAGS } from "../../src/render/model-text.ts";
import { renderRequest } from "../../src/render/request-assembly.ts";
import { buildContext } from "../../src/render/request-units.ts";
import { reviewMessage } from "../../src/render/review-message.ts";
import { assistant, call, custom, resetParents, result, user } from "../support/events.ts";

beforeEach(() => resetParents());

const render = (events: readonly LedgerEvent[]) =>
	renderRequest(ledgerOf(events), {
		config: DEFAULT_LEDGER_CONFIG,
		catalogue: [{ name: "read", description: "Read a file." }],
		tools: [],
		toolsMode: "repo",
		mode: "consult",
	});

const texts = (req: ReturnType<typeof render>, m: number) => {
	const content = buildContext(req).messages[m]!.content;
	return typeof content === "string" ? [content] : content.map((p) => (p.type === "text" ? p.text : "<image>"));
};

const USAGE = { input: 4000, output: 60, cacheRead: 0, cacheWrite: 0, cost: { total: 0.03 } };

function finishedRun(): LedgerEvent[] {
	return [
		user("u1", "add a --dry-run flag"),
		assistant("a1", { text: "Editing.", calls: [call("c1", "edit", { path: "src/cli.ts" })] }),
		result("r1", "c1", "edit", "ok"),
		assistant("a2", { text: "Added --dry-run." }),
	];
}

/** What the adapter appends when a review settles: its usage record, then (if shown) the message. */
function settleReview(events: LedgerEvent[], advice: string): void {
	const decision = reviewDecision(events, { enabled: true, minToolCalls: 1 });
	if (!decision.review) throw new Error(`expected a review, got ${decision.reason}`);
	const delivery = reviewDelivery(advice, { wokeThisPrompt: false, runActive: false });
	events.push({
		id: "k1",
		parentId: null,
		kind: "custom",
		customType: CUSTOM_TYPES.usage,
		data: reviewUsageRecord({
			model: "anthropic:claude-opus-4-5",
			usage: USAGE,
			answerEntryId: decision.answerEntryId,
			severity: delivery.severity,
			timestampMs: 1,
		}),
	});
	if (!delivery.show) return;
	const message = reviewMessage({ advice, answerEntryId: decision.answerEntryId, delivery, usage: USAGE });
	events.push(custom("rv1", message.customType, message.content, message.display, message.details));
}

describe("a delivered review", () => {
	it("replays as the advisor's own assistant turn under the review marker", () => {
		const events = finishedRun();
		settleReview(events, "Severity: concern\nThe flag is parsed but never read.");
		events.push(user("u2", "ok, fix it"), assistant("q", { text: "Right?", calls: [call("adv", "advisor")] }));

		const state = ledgerOf(events);
		expect(state.closed).toHaveLength(1);
		expect(state.closed[0]).toMatchObject({ closedBy: "review", closingId: "rv1", question: "" });

		const req = render(events);
		expect(buildContext(req).messages.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
		expect(texts(req, 1).at(-1)).toBe(`</${TAGS.log}>\n<${TAGS.review}>\n${REVIEW_MARKER}\n</${TAGS.review}>\n`);
		// The advice itself, not the message wrapper the executor saw.
		expect(texts(req, 2)).toEqual(["Severity: concern\nThe flag is parsed but never read."]);
		expect(JSON.stringify(buildContext(req))).not.toContain("Advisor review of your finished work");
		expect(texts(req, 3).join("")).toContain("ok, fix it");
	});

	it("counts once in the branch spend (the usage record; the copy in details is not billed again)", () => {
		const events = finishedRun();
		settleReview(events, "Severity: nit\nAdd a test.");
		expect(spendOf(events).totalUsd).toBe(0.03);
		expect(spendOf(events).records.map((r) => r.source)).toEqual(["review"]);
	});
});

describe("a `none` review is never delivered", () => {
	it("leaves nothing in the ledger but its usage record in the spend", () => {
		const events = finishedRun();
		const before = render(events);
		settleReview(events, "Severity: none\nLooks right.");
		expect(events.at(-1)).toMatchObject({ kind: "custom", customType: CUSTOM_TYPES.usage });

		const state = ledgerOf(events);
		expect(state.closed).toEqual([]);
		const after = render(events);
		expect(after.hash).toBe(before.hash);
		expect(JSON.stringify(buildContext(after))).not.toContain("Looks right");
		expect(buildContext(after).messages.some((m) => m.role === "assistant")).toBe(false);

		expect(spendOf(events).totalUsd).toBe(0.03);
		// And the answer is not reviewed again.
		expect(reviewDecision(events, { enabled: true, minToolCalls: 1 })).toMatchObject({
			review: false,
			reason: "already-reviewed",
		});
	});
});
