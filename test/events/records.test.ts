/**
 * The extension's own records, read back leniently: a malformed optional field costs that field, a
 * field with a default takes it, a missing or malformed required field (or a field marked to reject)
 * costs the record. The same rules under Pi's typebox 1.x alias are checked in schemas.typebox-alias.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
	parseAdvisorDetails,
	parseRequestRecord,
	parseReviewMessageDetails,
	parseTrimAnchorRecord,
	parseUsageRecordData,
} from "../../src/events/records.ts";

describe("request records", () => {
	it("keep what is well-formed and drop what is not", () => {
		expect(
			parseRequestRecord({
				hash: "h",
				messageCount: -3,
				estimatedTokens: "many",
				timestamp: -5,
				stableHash: "",
				stableUnits: 4,
				promptTokens: -1,
				lastSentMs: 9,
				extra: true,
			}),
		).toEqual({ hash: "h", messageCount: 0, estimatedTokens: 0, timestamp: -5, stableUnits: 4, lastSentMs: 9 });
	});
	it.each([
		[{ timestamp: 1 }],
		[{ hash: "", timestamp: 1 }],
		[{ hash: "h" }],
		[{ hash: "h", timestamp: "1" }],
		["h"],
		[null],
		[[{ hash: "h", timestamp: 1 }]],
	])("without a hash and a numeric timestamp there is none: %j", (value) => {
		expect(parseRequestRecord(value)).toBeUndefined();
	});
});

describe("usage records", () => {
	it("a nested request is as lenient as its parent; a bad one costs only itself", () => {
		expect(
			parseUsageRecordData({
				kind: "review",
				model: "p:m",
				usage: 7,
				request: { hash: "h", timestamp: 1, toolsHash: 3 },
			}),
		).toEqual({
			kind: "review",
			model: "p:m",
			usage: 7,
			timestampMs: 0,
			request: { hash: "h", messageCount: 0, estimatedTokens: 0, timestamp: 1 },
		});
		expect(parseUsageRecordData({ kind: "warming", model: "p:m", request: { hash: "h" } })).toEqual({
			kind: "warming",
			model: "p:m",
			usage: undefined,
			timestampMs: 0,
		});
	});
	it("reviews keep their verdict and answer; warming drops them; other kinds are no record", () => {
		const base = { model: "p:m", usage: {}, timestampMs: 1, answerEntryId: "a", severity: "blocker" };
		expect(parseUsageRecordData({ ...base, kind: "review" })).toMatchObject({
			answerEntryId: "a",
			severity: "blocker",
		});
		expect(parseUsageRecordData({ ...base, kind: "review", severity: "fatal" })).not.toHaveProperty("severity");
		expect(parseUsageRecordData({ ...base, kind: "warming" })).not.toHaveProperty("answerEntryId");
		expect(parseUsageRecordData({ ...base, kind: "consult" })).toBeUndefined();
		expect(parseUsageRecordData({ ...base, kind: "review", model: "" })).toBeUndefined();
	});
});

describe("trim anchor records", () => {
	it("a malformed anchor or boundary costs the record; a bad cap costs the cap", () => {
		expect(parseTrimAnchorRecord({ anchorEntryId: "e", tailCaps: 2.9 })).toEqual({
			anchorEntryId: "e",
			tailCaps: 2,
			summaryBoundaryId: null,
		});
		expect(parseTrimAnchorRecord({ anchorEntryId: 5, tailCaps: 100 })).toBeUndefined();
		expect(parseTrimAnchorRecord({ anchorEntryId: "", tailCaps: 100 })).toBeUndefined();
		expect(parseTrimAnchorRecord({ anchorEntryId: "e", summaryBoundaryId: 4 })).toBeUndefined();
		expect(parseTrimAnchorRecord({ anchorEntryId: "e", tailCaps: 0, summaryBoundaryId: "s" })).toEqual({
			anchorEntryId: "e",
			summaryBoundaryId: "s",
		});
	});
	it("a record that trims nothing is no record", () => {
		expect(parseTrimAnchorRecord({ summaryBoundaryId: null })).toBeUndefined();
		expect(parseTrimAnchorRecord({ tailCaps: "big" })).toBeUndefined();
	});
});

describe("advisor details and review messages", () => {
	it("advisor details: unreadable details read as none; bad fields are dropped one by one", () => {
		expect(parseAdvisorDetails("oops")).toEqual({});
		expect(
			parseAdvisorDetails({ skipped: "yes", stopReason: "aborted", errorMessage: 1, advisorModel: "p:m" }),
		).toEqual({ stopReason: "aborted", advisorModel: "p:m" });
	});
	it("review message details need their advice, verdict, answer and turn flag", () => {
		const details = { advice: "Severity: nit\nx", severity: "nit", answerEntryId: "a", triggerTurn: false };
		expect(parseReviewMessageDetails(details)).toEqual(details);
		expect(parseReviewMessageDetails({ ...details, triggerTurn: undefined })).toBeUndefined();
		expect(parseReviewMessageDetails({ ...details, severity: "bad" })).toBeUndefined();
	});
});
