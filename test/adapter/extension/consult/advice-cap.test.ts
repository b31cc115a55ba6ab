/**
 * The advice cap (advisor.json `advice.maxChars`, default 16000): a runaway answer reaches the
 * executor and the session cut, with a marker saying how much was left out, for a consultation
 * and for a completion review alike. The rule first, then a 10 MB answer from the faux advisor
 * on the real host.
 */

import { readFileSync, statSync } from "node:fs";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { capAdvice } from "../../../../src/adapter/extension/consult/advice-cap.ts";
import { ADVICE_CUT_MARKER, REVIEW_MESSAGE } from "../../../../src/render/index.ts";
import { ADVISOR_MODEL, ADVISOR_PROVIDER, type Host, startHost } from "../../../support/pi-host.ts";
import {
	REVIEW_CONFIG,
	reviewableRun,
	reviewMessages,
	reviewRecords,
	waitForReviewRecords,
} from "../../../support/review-host.ts";

const TEN_MB = 10 * 1024 * 1024;
const HEAD = "Severity: concern\nThe plan skips the migration.\n";

/** A 10 MB answer: a real verdict and plan, then a runaway tail. */
function runaway(): string {
	return HEAD + "x".repeat(TEN_MB - HEAD.length);
}

const markerOf = (cut: number) => ADVICE_CUT_MARKER(cut);

describe("capAdvice", () => {
	it("leaves an answer that fits untouched", () => {
		expect(capAdvice("Severity: none\nok", 16000)).toEqual({ text: "Severity: none\nok", cutChars: 0 });
		expect(capAdvice("a".repeat(300), 300)).toEqual({ text: "a".repeat(300), cutChars: 0 });
	});

	it("cuts a longer one to exactly the cap, marker included, naming what it cut", () => {
		const capped = capAdvice(runaway(), 16000);
		expect(capped.text.length).toBeLessThanOrEqual(16000);
		expect(capped.text.startsWith(HEAD)).toBe(true);
		expect(capped.text.endsWith(markerOf(capped.cutChars))).toBe(true);
		expect(capped.cutChars).toBe(TEN_MB - (capped.text.length - markerOf(capped.cutChars).length));
		expect(markerOf(capped.cutChars)).toBe(
			`\n\n[… ${capped.cutChars} chars of the advisor's answer cut here (advice.maxChars) …]`,
		);
	});

	it("for any text and cap: within the cap, a prefix of the text plus the marker, no half surrogate", () => {
		fc.assert(
			fc.property(
				fc.string({ unit: "grapheme", maxLength: 600 }),
				fc.integer({ min: 200, max: 700 }),
				(text, max) => {
					const capped = capAdvice(text, max);
					expect(capped.text.length).toBeLessThanOrEqual(max);
					if (text.length <= max) {
						expect(capped).toEqual({ text, cutChars: 0 });
						return;
					}
					const marker = markerOf(capped.cutChars);
					expect(capped.text.endsWith(marker)).toBe(true);
					const head = capped.text.slice(0, capped.text.length - marker.length);
					expect(text.startsWith(head)).toBe(true);
					expect(capped.cutChars).toBe(text.length - head.length);
					const last = head.charCodeAt(head.length - 1);
					expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
				},
			),
		);
	});
});

describe("on the real host, a 10 MB answer", () => {
	let host: Host | undefined;
	afterEach(async () => {
		await host?.dispose();
		host = undefined;
	});

	const sessionFileSize = (h: Host) => statSync(h.runtime.session.sessionFile!).size;

	it("to advisor(): the executor and the session get at most advice.maxChars, with the marker", async () => {
		const seen: string[] = [];
		host = await startHost({
			advisorConfig: { modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`, tools: { enabled: false } },
			executor: [
				fauxAssistantMessage([fauxText("Plan?"), fauxToolCall("advisor", {}, { id: "a1" })], {
					stopReason: "toolUse",
				}),
				(context) => {
					const last = context.messages.at(-1) as { content: { type: string; text?: string }[] };
					seen.push(last.content.map((p) => p.text ?? "").join(""));
					return fauxAssistantMessage("Adding the migration.");
				},
			],
			advisor: [fauxAssistantMessage(runaway())],
		});
		await host.runtime.session.prompt("Rename the column.");

		const [result] = host.advisorResults();
		const text = result!.content.map((p) => p.text ?? "").join("");
		expect(text.length).toBeLessThanOrEqual(16000);
		expect(text.startsWith(HEAD)).toBe(true);
		expect(text).toMatch(/\[… \d+ chars of the advisor's answer cut here \(advice\.maxChars\) …\]$/);
		const named = Number(/\[… (\d+) chars/.exec(text)![1]);
		expect(named).toBe(TEN_MB - text.slice(0, text.length - markerOf(named).length).length);
		expect(result!.details.severity).toBe("concern");
		// What the executor's next request carried is the capped text.
		expect(seen).toEqual([text]);
		// The session file holds no more than the cap's worth of advice.
		expect(readFileSync(host.runtime.session.sessionFile!, "utf8")).not.toContain("x".repeat(16000));
		expect(sessionFileSize(host)).toBeLessThan(100_000);
	});

	it("advice.maxChars is configurable", async () => {
		host = await startHost({
			advisorConfig: {
				modelKey: `${ADVISOR_PROVIDER}/${ADVISOR_MODEL}`,
				tools: { enabled: false },
				advice: { maxChars: 1000 },
			},
			executor: [
				fauxAssistantMessage(fauxToolCall("advisor", {}, { id: "a1" }), { stopReason: "toolUse" }),
				fauxAssistantMessage("ok"),
			],
			advisor: [fauxAssistantMessage(runaway())],
		});
		await host.runtime.session.prompt("Go.");
		const text = host
			.advisorResults()[0]!
			.content.map((p) => p.text ?? "")
			.join("");
		expect(text.length).toBeLessThanOrEqual(1000);
		expect(text.length).toBeGreaterThan(900);
	});

	it("to a completion review: the review message and its record of the advice are capped too", async () => {
		host = await startHost({
			advisorConfig: REVIEW_CONFIG,
			executor: reviewableRun("r1"),
			advisor: [fauxAssistantMessage(runaway())],
		});
		await host.runtime.session.prompt("Check the README.");
		await waitForReviewRecords(host);
		const h = host;
		expect(reviewRecords(h)).toMatchObject([{ kind: "review", outcome: "advice", severity: "concern" }]);
		const [message] = reviewMessages(h);
		const content = typeof message.content === "string" ? message.content : message.content[0].text;
		expect(content.startsWith(REVIEW_MESSAGE(HEAD))).toBe(true);
		expect(content.length).toBeLessThanOrEqual(REVIEW_MESSAGE("").length + 16000);
		expect(message.details.advice.length).toBeLessThanOrEqual(16000);
		expect(message.details.advice).toMatch(/cut here \(advice\.maxChars\) …\]$/);
		expect(sessionFileSize(h)).toBeLessThan(100_000);
	});
});
