import { describe, expect, it } from "vitest";
import { advisorToolLine } from "../../../src/adapter/pi/notices.ts";

describe("the advisor: progress line", () => {
	it("escapes control characters, even in a tool name that never passed a tool summary", () => {
		expect(advisorToolLine("re\u001b[31mad\nsrc")).toBe("advisor: re\\x1b[31mad\\nsrc");
	});
	it("leaves an already escaped summary as it is", () => {
		expect(advisorToolLine("read src/\\x1b[31mred\\nx")).toBe("advisor: read src/\\x1b[31mred\\nx");
	});
});
