/** What a card says of a call's argument: paths relative to the cwd, commands without a leading cd. */
import { describe, expect, it } from "vitest";
import { commandText, relativePath } from "../../src/render/card-argument.ts";

const CWD = "/home/u/proj";

describe("card arguments", () => {
	it("relativePath and commandText", () => {
		expect(relativePath(`${CWD}/`, CWD)).toBe(".");
		expect(relativePath(`${CWD}/a/b`, `${CWD}/`)).toBe("a/b");
		expect(relativePath("/x/y", "/")).toBe("/x/y");
		expect(relativePath("C:\\w\\p\\a.ts", "C:\\w\\p")).toBe("a.ts");
		expect(commandText(`  cd '${CWD}' && git status`, CWD)).toBe("git status");
		expect(commandText("npm test", undefined)).toBe("npm test");
	});
});
