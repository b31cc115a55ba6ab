// The text report's colours.
import { describe, expect, it } from "vitest";
import { styleFor } from "../../../../src/adapter/lab/report/text-report.ts";

describe("colours", () => {
	it("only on a terminal, and never with NO_COLOR", () => {
		expect(styleFor(true, {}).red("x")).toBe("\u001b[31mx\u001b[39m");
		expect(styleFor(true, { NO_COLOR: "1" }).red("x")).toBe("x");
		expect(styleFor(false, {}).red("x")).toBe("x");
		expect(styleFor(true, { NO_COLOR: "" }).red("x")).not.toBe("x");
	});
});
